package kubelogs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/optimus-sched/optimus/executor/kubeclient"
	k8s "github.com/optimus-sched/optimus/executor/kubernetes"
	"github.com/optimus-sched/optimus/executor/kubernetes/ktest"
	"github.com/optimus-sched/optimus/metrics"
)

func TestMain(m *testing.M) {
	code := m.Run()
	ktest.StopShared()
	os.Exit(code)
}

// pod is an optimus pod of a job's generation, bound to node.
func pod(ns, job, gen, role string, index int, node string) *corev1.Pod {
	name := job + "-" + role + "-" + strconv.Itoa(index)
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{
			k8s.LabelManagedBy: k8s.ManagedByValue, k8s.LabelJob: job, k8s.LabelRole: role,
			k8s.LabelIndex: strconv.Itoa(index), k8s.LabelGeneration: gen,
		}},
		Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "task", Image: "example.com/train"}}},
	}
}

// collect runs the source once and returns the warnings.
func collect(t *testing.T, c *Collector, root string) []string {
	t.Helper()
	var warns []string
	if err := c.Collect(context.Background(), root, func(e *metrics.Error) { warns = append(warns, e.Error()) }); err != nil {
		t.Fatal(err)
	}
	return warns
}

// Pod logs through the real API server's pods/log, proxied to the stand-in
// kubelet: fetched incrementally (sinceTime in whole seconds, the lines of
// that second already kept skipped), a second run with nothing new changes
// nothing, a pod without logs is a warning, a 10 MB line is skipped and
// bounded, and the files are the configuration's run directories.
func TestCollectThroughPodsLog(t *testing.T) {
	t.Parallel() // a namespace, node and log kubelet of its own
	srv := ktest.Shared(t)
	admin := srv.Admin()
	ctx := context.Background()
	ns := ktest.Namespace(t, admin)
	ktest.AddNodes(t, admin, []ktest.NodeSpec{{Name: "logs-node", Capacity: map[string]float64{"gpu": 4, "cpu": 16, "memory_gb": 64}}})
	kl := srv.StartLogKubelet(t)
	kl.Register(t, admin, "logs-node")
	for _, p := range []*corev1.Pod{
		pod(ns, "resnet", "g1", "ps", 0, "logs-node"), pod(ns, "resnet", "g1", "worker", 0, "logs-node"),
		pod(ns, "resnet", "g1", "worker", 1, "logs-node"), pod(ns, "vgg", "g1", "worker", 0, "logs-node"),
	} {
		if _, err := admin.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	line := func(batch int) string {
		return "2019-06-18 18:15:38,827 Node[0] Epoch[0] Batch [" + strconv.Itoa(batch-20) + "-" + strconv.Itoa(batch) + "]\tSpeed: 10356.65 samples/sec\taccuracy=0.001145"
	}
	// Two lines in the same second: the second fetch asks from the whole
	// second and must not keep the first again.
	kl.Log(t, ns, "resnet-worker-0", "task", t0.Add(100*time.Millisecond), line(20))
	kl.Log(t, ns, "resnet-worker-0", "task", t0.Add(500*time.Millisecond), line(40))

	c := &Collector{Conn: kubeclient.Options{RESTConfig: srv.Config(ktest.AdminToken), Namespace: ns}, Roles: map[string]bool{"worker": true}, Index: 0,
		LimitBytes: 64 << 20, Timeout: time.Minute}
	root := t.TempDir()
	warns := collect(t, c, root)
	file := filepath.Join(root, "resnet", "gen-g1", "ps1-w2", "resnet-worker-0.task"+metrics.PodLogSuffix)
	read := func() string {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	want := "2026-12-01T10:00:00.1Z " + line(20) + "\n2026-12-01T10:00:00.5Z " + line(40) + "\n"
	if got := read(); got != want {
		t.Errorf("first fetch:\n got %q\nwant %q", got, want)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "pod "+ns+"/vgg-worker-0 container task") || !strings.Contains(warns[0], "no log yet") ||
		!strings.Contains(warns[0], "waiting to start") {
		t.Errorf("warnings %q, want one: vgg-worker-0 has no log yet", warns)
	}
	if _, err := os.Stat(filepath.Join(root, "vgg")); err == nil {
		t.Errorf("a pod with no log yet left a directory")
	}

	// Nothing new: the same file.
	collect(t, c, root)
	if got := read(); got != want {
		t.Errorf("second fetch of the same log changed the file:\n got %q\nwant %q", got, want)
	}
	// A line in the same second as the last kept, one later, a 10 MB line,
	// and one after it.
	kl.Log(t, ns, "resnet-worker-0", "task", t0.Add(900*time.Millisecond), line(60))
	kl.Log(t, ns, "resnet-worker-0", "task", t0.Add(3*time.Second), line(80))
	kl.Log(t, ns, "resnet-worker-0", "task", t0.Add(4*time.Second), strings.Repeat("x", 10<<20))
	kl.Log(t, ns, "resnet-worker-0", "task", t0.Add(5*time.Second), line(100))
	warns = collect(t, c, root)
	want += "2026-12-01T10:00:00.9Z " + line(60) + "\n2026-12-01T10:00:03Z " + line(80) + "\n2026-12-01T10:00:04Z\n2026-12-01T10:00:05Z " + line(100) + "\n"
	if got := read(); got != want {
		t.Errorf("after the log grew:\n got %.400q\nwant %.400q", got, want)
	}
	long := false
	for _, w := range warns {
		long = long || strings.Contains(w, "pod "+ns+"/resnet-worker-0 container task: the line logged at 2026-12-01T10:00:04Z has 10485760 bytes, more than 1048576: skipped")
	}
	if !long {
		t.Errorf("warnings %q lack the 10 MB line", warns)
	}
	var last string
	for _, r := range kl.Requests() {
		if strings.HasPrefix(r, "/containerLogs/"+ns+"/resnet-worker-0/task?") {
			last = r
		}
	}
	if !strings.Contains(last, "sinceTime=2026-12-01T10%3A00%3A00Z") || !strings.Contains(last, "timestamps=true") {
		t.Errorf("the last request for resnet-worker-0 was %q: want sinceTime of the last line kept, in whole seconds, with timestamps", last)
	}

	// A fetch cut by limitBytes mid-line: the cut line comes whole next
	// time, every line once.
	small := *c
	small.LimitBytes = 250
	wantMore := want
	for i := 6; i <= 12; i++ {
		kl.Log(t, ns, "resnet-worker-0", "task", t0.Add(time.Duration(i)*time.Second), line(20*i))
		wantMore += "2026-12-01T10:00:" + fmt.Sprintf("%02d", i) + "Z " + line(20*i) + "\n"
	}
	for range 10 { // one new line a fetch: the second of the last line kept comes again
		collect(t, &small, root)
	}
	if got := read(); got != wantMore {
		t.Errorf("fetched 250 bytes at a time:\n got %.2000q\nwant %.2000q", got[len(want):], wantMore[len(want):])
	}

	// The text sources read it, times from the lines, steps from epochs.
	readers, err := metrics.NewReaders([]string{"kubernetes"}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	found, err := metrics.Discover(root, readers, func(string, string) {})
	if err != nil || len(found) != 1 || found[0].Job != "resnet" || *found[0].Files[0].Config != (metrics.Configuration{PS: 1, Workers: 2}) {
		t.Fatalf("discovered %+v, %v: want resnet's one file at ps=1 workers=2", found, err)
	}
	jr, err := metrics.ReadJob(found[0], readers, func(*metrics.Error) {})
	if err != nil {
		t.Fatal(err)
	}
	if err := jr.Resolve(1000); err != nil {
		t.Fatal(err)
	}
	if len(jr.Series) != 1 || jr.Series[0].Tag != "accuracy" || len(jr.Series[0].Points()) != 12 || jr.Series[0].Points()[11].Step != 240 {
		t.Errorf("read %+v: want 12 accuracy points, the last at step 240", jr.Series)
	}
}
