package kubelogs

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/optimus-sched/optimus/executor/kubernetes/ktest"
)

// The stand-in kubelet through the API server's pods/log, as client-go's
// GetLogs asks it: sinceTime, timestamps, tailLines and limitBytes as the
// kubelet honours them, partial lines joined, a container without a log
// one waiting to start. (A test of ktest's LogKubelet, kept in the test
// binary of the package its stand-in serves: in ktest's own it was that
// binary's one test, and cost a link and an API server of its own.)
func TestLogKubeletThroughPodsLog(t *testing.T) {
	t.Parallel()
	srv := ktest.Shared(t)
	admin := srv.Admin()
	ctx := context.Background()
	ns := ktest.Namespace(t, admin)
	ktest.AddNodes(t, admin, []ktest.NodeSpec{{Name: "logkubelet-node", Capacity: map[string]float64{"cpu": 4}}})
	kl := srv.StartLogKubelet(t)
	kl.Register(t, admin, "logkubelet-node")
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: ns},
		Spec: corev1.PodSpec{NodeName: "logkubelet-node", Containers: []corev1.Container{{Name: "a", Image: "x"}, {Name: "b", Image: "x"}}}}
	if _, err := admin.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	long := strings.Repeat("y", 40<<10) // split by the runtime into P pieces
	kl.Log(t, ns, "p", "a", t0, "one")
	kl.Log(t, ns, "p", "a", t0.Add(1500*time.Millisecond), "two", long)
	kl.Log(t, ns, "p", "a", t0.Add(3*time.Second), "three")
	get := func(o corev1.PodLogOptions) (string, error) {
		rc, err := admin.CoreV1().Pods(ns).GetLogs("p", &o).Stream(ctx)
		if err != nil {
			return "", err
		}
		defer rc.Close()
		b, err := io.ReadAll(rc)
		return string(b), err
	}
	i := func(n int64) *int64 { return &n }
	since := metav1.NewTime(t0.Add(1700 * time.Millisecond)) // passed on as 03:04:06
	for _, c := range []struct {
		name string
		o    corev1.PodLogOptions
		want string
	}{
		{"all", corev1.PodLogOptions{Container: "a"}, "one\ntwo\n" + long + "\nthree\n"},
		{"timestamps", corev1.PodLogOptions{Container: "a", Timestamps: true, TailLines: i(1)}, "2026-01-02T03:04:08Z three\n"},
		{"tail", corev1.PodLogOptions{Container: "a", TailLines: i(2)}, long + "\nthree\n"},
		{"since, in whole seconds", corev1.PodLogOptions{Container: "a", SinceTime: &since, Timestamps: true, LimitBytes: i(40)},
			"2026-01-02T03:04:06.5Z two\n2026-01-02T03"},
		{"limit", corev1.PodLogOptions{Container: "a", LimitBytes: i(6)}, "one\ntw"},
	} {
		got, err := get(c.o)
		if err != nil || got != c.want {
			t.Errorf("%s: %.80q, %v; want %.80q", c.name, got, err, c.want)
		}
	}
	if _, err := get(corev1.PodLogOptions{Container: "b"}); err == nil || !strings.Contains(err.Error(), `container "b" in pod "p" is waiting to start`) {
		t.Errorf("a container without a log: %v", err)
	}

	// previous=true: what the kubelet answers for a container that never
	// restarted, then the last ended instance's log, honouring the same
	// options, and only the last one.
	if _, err := get(corev1.PodLogOptions{Container: "a", Previous: true}); !apierrors.IsBadRequest(err) ||
		err.Error() != `previous terminated container "a" in pod "p" not found` {
		t.Errorf("previous of a container never restarted: %v; want the kubelet's BadRequest", err)
	}
	kl.Restart(t, ns, "p", "a", t0.Add(4*time.Second))
	kl.Log(t, ns, "p", "a", t0.Add(5*time.Second), "four")
	for _, c := range []struct {
		name string
		o    corev1.PodLogOptions
		want string
	}{
		{"after a restart", corev1.PodLogOptions{Container: "a"}, "four\n"},
		{"previous", corev1.PodLogOptions{Container: "a", Previous: true, TailLines: i(1)}, "three\n"},
		{"previous since", corev1.PodLogOptions{Container: "a", Previous: true, SinceTime: &since, Timestamps: true, LimitBytes: i(30)},
			"2026-01-02T03:04:06.5Z two\n202"},
	} {
		got, err := get(c.o)
		if err != nil || got != c.want {
			t.Errorf("%s: %.80q, %v; want %.80q", c.name, got, err, c.want)
		}
	}
	st := func() corev1.ContainerStatus {
		got, err := admin.CoreV1().Pods(ns).Get(ctx, "p", metav1.GetOptions{})
		if err != nil || len(got.Status.ContainerStatuses) != 1 {
			t.Fatalf("pod status %+v, %v: want one container's", got.Status, err)
		}
		return got.Status.ContainerStatuses[0]
	}
	if s := st(); s.Name != "a" || s.RestartCount != 1 || s.State.Running == nil || !s.State.Running.StartedAt.Time.Equal(t0.Add(4*time.Second)) ||
		s.LastTerminationState.Terminated == nil || s.LastTerminationState.Terminated.ExitCode != 1 || s.ContainerID == s.LastTerminationState.Terminated.ContainerID {
		t.Errorf("status after a restart: %+v", s)
	}
	kl.Restart(t, ns, "p", "a", t0.Add(6*time.Second))
	if got, err := get(corev1.PodLogOptions{Container: "a", Previous: true}); err != nil || got != "four\n" {
		t.Errorf("previous after a second restart: %q, %v; want the second instance's log alone", got, err)
	}
	if got, err := get(corev1.PodLogOptions{Container: "a"}); err != nil || got != "" {
		t.Errorf("a new instance that printed nothing: %q, %v; want an empty log", got, err)
	}
	if s := st(); s.RestartCount != 2 || !s.LastTerminationState.Terminated.StartedAt.Time.Equal(t0.Add(4*time.Second)) {
		t.Errorf("status after a second restart: %+v", s)
	}
	// A crash without a restart yet (CrashLoopBackOff): the current log
	// is the ended instance's, as previous is; then the next instance.
	kl.Log(t, ns, "p", "a", t0.Add(7*time.Second), "five")
	kl.Crash(t, ns, "p", "a", t0.Add(8*time.Second))
	for _, prev := range []bool{false, true} {
		if got, err := get(corev1.PodLogOptions{Container: "a", Previous: prev}); err != nil || got != "five\n" {
			t.Errorf("crashed, previous=%v: %q, %v; want the ended instance's log", prev, got, err)
		}
	}
	if s := st(); s.RestartCount != 2 || s.State.Waiting == nil || s.State.Waiting.Reason != "CrashLoopBackOff" || s.Ready ||
		s.LastTerminationState.Terminated == nil || !s.LastTerminationState.Terminated.FinishedAt.Time.Equal(t0.Add(8*time.Second)) ||
		s.LastTerminationState.Terminated.ContainerID != s.ContainerID {
		t.Errorf("status after a crash: %+v", s)
	}
	kl.Restart(t, ns, "p", "a", t0.Add(18*time.Second))
	if got, err := get(corev1.PodLogOptions{Container: "a", Previous: true}); err != nil || got != "five\n" {
		t.Errorf("previous after the crash's restart: %q, %v", got, err)
	}
	if s := st(); s.RestartCount != 3 || s.State.Running == nil || !s.LastTerminationState.Terminated.FinishedAt.Time.Equal(t0.Add(8*time.Second)) {
		t.Errorf("status after the crash's restart: %+v", s)
	}
	if n := len(kl.Requests()); n != 15 {
		t.Errorf("the kubelet served %d requests, want 15: %v", n, kl.Requests())
	}
}
