package ktest

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
)

// The kubelets' certificate authority: Start writes it into the server's
// directory and passes it as --kubelet-certificate-authority, so the API
// server checks the stand-in kubelet's serving certificate as it would a
// real one's.
const (
	kubeletCACert = "kubelet-ca.crt"
	kubeletCAKey  = "kubelet-ca.key"
)

// writeKubeletCA writes a self-signed CA for the kubelets' serving
// certificates.
func writeKubeletCA(dir string) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "ktest kubelet CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return err
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, kubeletCACert), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, kubeletCAKey), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb}), 0o600)
}

// LogKubelet plays the log endpoint of the kubelets of the nodes it is
// registered on: the API server's pods/log proxies a pod's log request to
// GET https://ADDRESS:PORT/containerLogs/NAMESPACE/POD/CONTAINER on the
// pod's node, and LogKubelet answers it from a file in the container
// runtime's (CRI) log format that the test appends to with Log, honouring
// sinceTime, sinceSeconds, timestamps, tailLines and limitBytes as the
// kubelet does. A container with no file is one still waiting to start.
// Restart ends a container's instance and starts another, Crash ends it
// only (a crash loop's back-off); previous=true reads the last ended
// instance's log, the only one the kubelet keeps.
type LogKubelet struct {
	Port   int
	dir    string
	client kubernetes.Interface
	srv    *httptest.Server
	mu     sync.Mutex
	// requests are the paths and queries of the log requests served, in order.
	requests []string
}

// StartLogKubelet starts a stand-in kubelet with a serving certificate for
// 127.0.0.1 signed by the server's kubelet CA; it stops when t ends.
func (s *Server) StartLogKubelet(t testing.TB) *LogKubelet {
	t.Helper()
	caPEM, err := os.ReadFile(filepath.Join(s.Dir, kubeletCACert))
	if err != nil {
		t.Fatalf("ktest: the kubelet CA: %v", err)
	}
	keyPEM, err := os.ReadFile(filepath.Join(s.Dir, kubeletCAKey))
	if err != nil {
		t.Fatalf("ktest: the kubelet CA: %v", err)
	}
	cert, err := kubeletCert(caPEM, keyPEM)
	if err != nil {
		t.Fatalf("ktest: the kubelet's certificate: %v", err)
	}
	k := &LogKubelet{dir: t.TempDir(), client: s.Admin()}
	k.srv = httptest.NewUnstartedServer(http.HandlerFunc(k.serve))
	k.srv.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	k.srv.StartTLS()
	t.Cleanup(k.srv.Close)
	k.Port = k.srv.Listener.Addr().(*net.TCPAddr).Port
	return k
}

func kubeletCert(caPEM, keyPEM []byte) (tls.Certificate, error) {
	cb, _ := pem.Decode(caPEM)
	kb, _ := pem.Decode(keyPEM)
	if cb == nil || kb == nil {
		return tls.Certificate{}, errors.New("not PEM")
	}
	ca, err := x509.ParseCertificate(cb.Bytes)
	if err != nil {
		return tls.Certificate{}, err
	}
	caKey, err := x509.ParseECPrivateKey(kb.Bytes)
	if err != nil {
		return tls.Certificate{}, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "ktest kubelet"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}

// Register makes the nodes' kubelet this one: their status.addresses
// (InternalIP 127.0.0.1) and status.daemonEndpoints.kubeletEndpoint.Port,
// which the API server dials for their pods' logs.
func (k *LogKubelet) Register(t testing.TB, c kubernetes.Interface, nodes ...string) {
	t.Helper()
	ctx := context.Background()
	for _, name := range nodes {
		n, err := c.CoreV1().Nodes().Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("ktest: node %s: %v", name, err)
		}
		n.Status.Addresses = []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: "127.0.0.1"}}
		n.Status.DaemonEndpoints.KubeletEndpoint.Port = int32(k.Port)
		if _, err := c.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("ktest: node %s status: %v", name, err)
		}
	}
}

// file is where a container's log is kept: by the pod's UID, as the
// kubelet keeps /var/log/pods/NAMESPACE_POD_UID/CONTAINER/, so that a pod
// made again under the same name starts a log of its own.
func (k *LogKubelet) file(ns, pod, container string) (string, error) {
	p, err := k.client.CoreV1().Pods(ns).Get(context.Background(), pod, metav1.GetOptions{})
	if err != nil {
		return "", err
	}
	return filepath.Join(k.dir, ns+"_"+pod+"_"+string(p.UID)+"_"+container+".log"), nil
}

// previousFile is where the log of a container's last terminated instance
// is kept (the kubelet's /var/log/pods/.../CONTAINER/RESTARTCOUNT.log of
// the instance before the running one; older ones are removed with their
// containers, one dead instance being kept per container).
func previousFile(current string) string {
	return strings.TrimSuffix(current, ".log") + ".previous.log"
}

// Crash ends the running instance of a container at at without starting
// another, as the kubelet leaves a crashed container while it backs off
// (CrashLoopBackOff): the ended instance's log becomes the one
// previous=true reads (replacing the one before it, which is gone), and,
// there being no running instance, a request for the current log reads it
// too (validateContainerLogStatus takes lastState.terminated before the
// waiting state). The pod's status shows state.waiting and
// lastState.terminated (exit code 1, finished at at), restartCount as it
// was. Restart then starts the next instance (call it before Log, which
// would otherwise start the next instance's log without its status).
func (k *LogKubelet) Crash(t testing.TB, ns, pod, container string, at time.Time) {
	t.Helper()
	k.mu.Lock()
	defer k.mu.Unlock()
	k.end(t, ns, pod, container, at, false)
}

// Restart ends the running instance of a container at at, unless Crash
// did, and starts a new one, as the kubelet does when a container exits
// under restartPolicy Always: the ended instance's log becomes the one
// previous=true reads (replacing the one before it, which is gone), the
// new instance's log starts empty, and the pod's status, written through
// the status subresource as a kubelet writes it, shows the container's
// restartCount one higher, lastState.terminated the ended instance (exit
// code 1, finished at at) and state.running the new one, started at at. A
// pod still Pending turns Running.
func (k *LogKubelet) Restart(t testing.TB, ns, pod, container string, at time.Time) {
	t.Helper()
	k.mu.Lock()
	defer k.mu.Unlock()
	k.end(t, ns, pod, container, at, true)
}

// end ends the container's instance (unless it has ended) and, with
// start, starts the next one.
func (k *LogKubelet) end(t testing.TB, ns, pod, container string, at time.Time, start bool) {
	t.Helper()
	path, err := k.file(ns, pod, container)
	if err != nil {
		t.Fatalf("ktest: the log of %s/%s: %v", ns, pod, err)
	}
	_, err = os.Stat(path)
	_, perr := os.Stat(previousFile(path))
	// Without a current log but with a previous one, the container has
	// crashed and waits: the instance ended already.
	crashed := errors.Is(err, os.ErrNotExist) && perr == nil
	if !crashed {
		if err := os.Rename(path, previousFile(path)); errors.Is(err, os.ErrNotExist) {
			// An instance that printed nothing leaves an empty log.
			if err := os.WriteFile(previousFile(path), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		} else if err != nil {
			t.Fatal(err)
		}
	}
	if start {
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pods := k.client.CoreV1().Pods(ns)
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		p, err := pods.Get(context.Background(), pod, metav1.GetOptions{})
		if err != nil {
			return err
		}
		var cs *corev1.ContainerStatus
		for i := range p.Status.ContainerStatuses {
			if p.Status.ContainerStatuses[i].Name == container {
				cs = &p.Status.ContainerStatuses[i]
			}
		}
		if cs == nil {
			image := ""
			for _, c := range p.Spec.Containers {
				if c.Name == container {
					image = c.Image
				}
			}
			p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, corev1.ContainerStatus{
				Name: container, Image: image, ContainerID: containerID(p, container, 0),
				State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: p.CreationTimestamp}},
			})
			cs = &p.Status.ContainerStatuses[len(p.Status.ContainerStatuses)-1]
		}
		now := metav1.NewTime(at)
		if !crashed {
			started := p.CreationTimestamp
			if cs.State.Running != nil {
				started = cs.State.Running.StartedAt
			}
			cs.LastTerminationState = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
				ExitCode: 1, Reason: "Error", StartedAt: started, FinishedAt: now, ContainerID: cs.ContainerID}}
		}
		started := start
		cs.Ready, cs.Started = start, &started
		if start {
			cs.RestartCount++
			cs.ContainerID = containerID(p, container, cs.RestartCount)
			cs.State = corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}}
		} else {
			cs.State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff",
				Message: "back-off 10s restarting failed container=" + container + " pod=" + pod + "_" + ns + "(" + string(p.UID) + ")"}}
		}
		if p.Status.Phase == "" || p.Status.Phase == corev1.PodPending {
			p.Status.Phase = corev1.PodRunning
			if p.Status.StartTime == nil {
				p.Status.StartTime = &p.CreationTimestamp
			}
		}
		_, err = pods.UpdateStatus(context.Background(), p, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatalf("ktest: the status of %s/%s after ending %s's instance: %v", ns, pod, container, err)
	}
}

// containerID names an instance of a container as the runtime would.
func containerID(p *corev1.Pod, container string, restarts int32) string {
	return fmt.Sprintf("containerd://ktest-%s-%s-%d", p.UID, container, restarts)
}

// Log appends lines to the log of a container of the pod now called pod,
// as the container runtime writes it: one CRI line per line, stamped at (RFC 3339 with nanoseconds),
// stream stdout, tag F (a whole line). A line longer than partial is
// written as the runtime splits it: P (partial) pieces, then an F.
func (k *LogKubelet) Log(t testing.TB, ns, pod, container string, at time.Time, lines ...string) {
	t.Helper()
	k.mu.Lock()
	defer k.mu.Unlock()
	path, err := k.file(ns, pod, container)
	if err != nil {
		t.Fatalf("ktest: the log of %s/%s: %v", ns, pod, err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := bufio.NewWriter(f)
	stamp := at.UTC().Format(time.RFC3339Nano)
	for _, l := range lines {
		for len(l) > partial {
			fmt.Fprintf(w, "%s stdout P %s\n", stamp, l[:partial])
			l = l[partial:]
		}
		fmt.Fprintf(w, "%s stdout F %s\n", stamp, l)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
}

// partial is the length at which the runtime splits a line (containerd's
// max_container_log_line_size default is 16 KiB).
const partial = 16 << 10

// Requests returns the paths and queries of the log requests served so far.
func (k *LogKubelet) Requests() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]string(nil), k.requests...)
}

// criLine is one logical line of a container's log.
type criLine struct {
	at   time.Time
	text []byte // without its newline
}

func (k *LogKubelet) serve(w http.ResponseWriter, r *http.Request) {
	parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/containerLogs/"), "/")
	if !strings.HasPrefix(r.URL.Path, "/containerLogs/") || len(parts) != 3 || r.Method != http.MethodGet {
		http.NotFound(w, r)
		return
	}
	ns, pod, container := parts[0], parts[1], parts[2]
	q := r.URL.Query()
	path, err := k.file(ns, pod, container)
	if err != nil {
		http.Error(w, fmt.Sprintf("pod %s/%s: %v", ns, pod, err), http.StatusNotFound)
		return
	}
	previous := q.Get("previous") == "true"
	if previous {
		path = previousFile(path)
	}
	k.mu.Lock()
	k.requests = append(k.requests, r.URL.Path+"?"+r.URL.RawQuery)
	data, err := os.ReadFile(path)
	k.mu.Unlock()
	// The kubelet answers a log it cannot give with 400 and its error's
	// text (pkg/kubelet/server.go, getContainerLogs), which the API
	// server passes on as a BadRequest with that message. The texts are
	// validateContainerLogStatus's (pkg/kubelet/kubelet_pods.go).
	if errors.Is(err, os.ErrNotExist) && previous {
		// No lastState.terminated: the container never restarted.
		kubeletError(w, fmt.Sprintf("previous terminated container %q in pod %q not found", container, pod))
		return
	}
	if errors.Is(err, os.ErrNotExist) && !previous {
		// Crashed and waiting to start again: the ended instance's log.
		k.mu.Lock()
		data, err = os.ReadFile(previousFile(path))
		k.mu.Unlock()
	}
	if errors.Is(err, os.ErrNotExist) {
		// What the kubelet says of a container not started yet.
		kubeletError(w, fmt.Sprintf("container %q in pod %q is waiting to start: ContainerCreating", container, pod))
		return
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	var since time.Time
	if v := q.Get("sinceSeconds"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			http.Error(w, "sinceSeconds: "+err.Error(), http.StatusBadRequest)
			return
		}
		since = time.Now().Add(-time.Duration(n) * time.Second)
	}
	if v := q.Get("sinceTime"); v != "" {
		st, err := time.Parse(time.RFC3339, v)
		if err != nil {
			http.Error(w, "sinceTime: "+err.Error(), http.StatusBadRequest)
			return
		}
		if st.After(since) {
			since = st
		}
	}
	tail, limit := int64(-1), int64(-1)
	for name, p := range map[string]*int64{"tailLines": &tail, "limitBytes": &limit} {
		if v := q.Get(name); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || n < 0 {
				http.Error(w, name+": not a count", http.StatusBadRequest)
				return
			}
			*p = n
		}
	}
	lines, err := parseCRI(data)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	// tailLines counts from the end of the file, before sinceTime
	// filters (the kubelet seeks back tailLines lines, then reads on).
	if tail >= 0 && int64(len(lines)) > tail {
		lines = lines[int64(len(lines))-tail:]
	}
	var out bytes.Buffer
	for _, l := range lines {
		if l.at.Before(since) {
			continue
		}
		if q.Get("timestamps") == "true" {
			out.WriteString(l.at.Format(time.RFC3339Nano))
			out.WriteByte(' ')
		}
		out.Write(l.text)
		out.WriteByte('\n')
	}
	b := out.Bytes()
	if limit >= 0 && int64(len(b)) > limit {
		b = b[:limit] // cut mid-line, as the kubelet's limitBytes does
	}
	w.Header().Set("Content-Type", "text/plain")
	_, _ = w.Write(b)
}

// kubeletError answers as the kubelet's go-restful WriteError does: the
// status and the error's text, without a newline.
func kubeletError(w http.ResponseWriter, msg string) {
	w.Header().Set("Content-Type", "text/plain")
	w.WriteHeader(http.StatusBadRequest)
	_, _ = io.WriteString(w, msg)
}

// parseCRI reads a CRI log file: "TIME STREAM TAG TEXT" lines, partial (P)
// pieces joined to the full (F) line that ends them.
func parseCRI(data []byte) ([]criLine, error) {
	var out []criLine
	var pending []byte
	var first time.Time
	for no, raw := range bytes.Split(data, []byte{'\n'}) {
		if len(raw) == 0 {
			continue
		}
		f := bytes.SplitN(raw, []byte{' '}, 4)
		if len(f) < 4 {
			return nil, fmt.Errorf("CRI log line %d: %q", no+1, raw)
		}
		at, err := time.Parse(time.RFC3339Nano, string(f[0]))
		if err != nil {
			return nil, fmt.Errorf("CRI log line %d: %v", no+1, err)
		}
		if pending == nil {
			first = at // a line is stamped when its first piece was written
		}
		pending = append(pending, f[3]...)
		if string(f[2]) == "P" {
			continue
		}
		out = append(out, criLine{at: first, text: pending})
		pending = nil
	}
	return out, nil
}
