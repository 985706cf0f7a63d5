// Package ktest starts a real etcd and kube-apiserver on free loopback
// ports for tests, from the binaries scripts/k8s-build.sh builds (the
// OPTIMUS_ETCD and OPTIMUS_KUBE_APISERVER variables, else tools/k8s/bin).
// Without the binaries a test skips and says why, except under CI (CI=true),
// where it fails: there the servers must run.
package ktest

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Tokens the API server accepts (--token-auth-file).
const (
	AdminToken = "optimus-test-admin"   // user "admin" in system:masters
	UserToken  = "optimus-test-user"    // user "optimus", no rights until a RoleBinding grants them
	UserName   = "optimus"              // the user of UserToken
	OtherToken = "optimus-test-someone" // user "someone", never granted anything
)

// Server is a running etcd and kube-apiserver.
type Server struct {
	Host string // https://127.0.0.1:PORT
	Dir  string // certificates, tokens, data and logs
	ca   []byte

	etcd, apiserver *exec.Cmd
	etcdExit        chan error
	apiserverExit   chan error
}

var (
	sharedOnce sync.Once
	shared     *Server
	sharedErr  error
)

// Shared starts one server for the whole test binary on first use (call
// StopShared from TestMain). It skips t when the binaries are absent
// outside CI, and fails it when the server cannot start.
func Shared(t testing.TB) *Server {
	t.Helper()
	apiserver, etcd := need(t)
	sharedOnce.Do(func() { shared, sharedErr = Start(apiserver, etcd) })
	if sharedErr != nil {
		t.Fatalf("ktest: starting the API server: %v", sharedErr)
	}
	return shared
}

// StartT starts a server for one test and stops it when the test ends;
// skips and failures as Shared.
func StartT(t testing.TB) *Server {
	t.Helper()
	apiserver, etcd := need(t)
	s, err := Start(apiserver, etcd)
	if err != nil {
		t.Fatalf("ktest: starting the API server: %v", err)
	}
	t.Cleanup(s.Stop)
	return s
}

// need finds the binaries, or skips t (fails it under CI=true).
func need(t testing.TB) (apiserver, etcd string) {
	t.Helper()
	apiserver, etcd, missing := Binaries()
	if missing != "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("ktest: CI=true but %s; build them with scripts/k8s-build.sh", missing)
		}
		t.Skipf("ktest: skipping: %s (build them with scripts/k8s-build.sh, or make k8s-build)", missing)
	}
	return apiserver, etcd
}

// DefaultParallel sets how many parallel tests of the binary run at once
// (-test.parallel, which defaults to GOMAXPROCS: 2 here) to n unless the
// command line gives it; call it from TestMain after flag.Parse. The tests
// against the API server mostly wait (on its answers, a rate limit, a
// Lease), so GOMAXPROCS of them leave the CPU idle; each runs in a
// namespace (and on nodes) of its own, so more of them at once change
// nothing they check.
func DefaultParallel(n int) {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		_ = flag.Set("test.parallel", strconv.Itoa(n))
	}
}

// StopShared stops the shared server, if one was started.
func StopShared() {
	if shared != nil {
		shared.Stop()
	}
}

// Binaries finds kube-apiserver and etcd; missing says what is absent.
func Binaries() (apiserver, etcd, missing string) {
	root := repoRoot()
	apiserver = os.Getenv("OPTIMUS_KUBE_APISERVER")
	if apiserver == "" && root != "" {
		apiserver = filepath.Join(root, "tools", "k8s", "bin", "kube-apiserver")
	}
	etcd = os.Getenv("OPTIMUS_ETCD")
	if etcd == "" && root != "" {
		etcd = filepath.Join(root, "tools", "k8s", "bin", "etcd")
	}
	var absent []string
	for i, p := range []string{apiserver, etcd} {
		if p == "" {
			absent = append(absent, []string{"$OPTIMUS_KUBE_APISERVER", "$OPTIMUS_ETCD"}[i]+" (unset, and no tools/k8s above the working directory)")
		} else if st, err := os.Stat(p); err != nil || st.IsDir() {
			absent = append(absent, p)
		}
	}
	if len(absent) > 0 {
		missing = "no kube-apiserver/etcd binary at " + strings.Join(absent, ", ")
	}
	return apiserver, etcd, missing
}

// repoRoot is the nearest directory above the working directory holding
// tools/k8s/go.mod.
func repoRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "tools", "k8s", "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Start starts etcd and kube-apiserver and waits until the API server is
// ready. Stop them with Stop. The API server is started beside etcd, not
// after it: it retries its etcd connection until etcd listens, and the two
// processes' start-up (loading and initialising a large binary each)
// overlaps instead of adding up.
func Start(apiserverBin, etcdBin string) (*Server, error) {
	dir, err := os.MkdirTemp(tempRoot(), "optimus-ktest-")
	if err != nil {
		return nil, err
	}
	s := &Server{Dir: dir}
	ok := false
	defer func() {
		if !ok {
			s.Stop()
		}
	}()
	var ports [3]int
	for i := range ports {
		if ports[i], err = freePort(); err != nil {
			return nil, err
		}
	}
	etcdURL := "http://127.0.0.1:" + strconv.Itoa(ports[0])
	if err := writeKeys(dir); err != nil {
		return nil, err
	}
	if err := writeKubeletCA(dir); err != nil {
		return nil, err
	}
	tokens := fmt.Sprintf("%s,admin,uid-admin,system:masters\n%s,%s,uid-optimus\n%s,someone,uid-someone\n", AdminToken, UserToken, UserName, OtherToken)
	if err := os.WriteFile(filepath.Join(dir, "tokens.csv"), []byte(tokens), 0o600); err != nil {
		return nil, err
	}
	s.etcd, s.etcdExit, err = launch(dir, "etcd", etcdBin,
		"--data-dir", filepath.Join(dir, "etcd-data"),
		"--listen-client-urls", etcdURL, "--advertise-client-urls", etcdURL,
		"--listen-peer-urls", "http://127.0.0.1:"+strconv.Itoa(ports[1]),
		"--initial-advertise-peer-urls", "http://127.0.0.1:"+strconv.Itoa(ports[1]),
		"--initial-cluster", "default=http://127.0.0.1:"+strconv.Itoa(ports[1]),
		"--unsafe-no-fsync", "--log-level", "warn")
	if err != nil {
		return nil, err
	}
	s.Host = "https://127.0.0.1:" + strconv.Itoa(ports[2])
	args := []string{"--etcd-servers", etcdURL,
		"--bind-address", "127.0.0.1", "--advertise-address", "127.0.0.1",
		"--secure-port", strconv.Itoa(ports[2]),
		"--cert-dir", filepath.Join(dir, "certs"),
		"--endpoint-reconciler-type", "none",
		"--service-cluster-ip-range", "10.96.0.0/16",
		"--service-account-issuer", "https://kubernetes.default.svc",
		"--service-account-key-file", filepath.Join(dir, "sa.pub"),
		"--service-account-signing-key-file", filepath.Join(dir, "sa.key"),
		"--token-auth-file", filepath.Join(dir, "tokens.csv"),
		"--authorization-mode", "RBAC",
		"--kubelet-certificate-authority", filepath.Join(dir, kubeletCACert)}
	s.apiserver, s.apiserverExit, err = launch(dir, "kube-apiserver", apiserverBin, append(args, APIServerFlags...)...)
	if err != nil {
		return nil, err
	}
	// etcd first, so that an etcd that cannot start is reported with its
	// own log rather than as an API server that is never ready.
	if err := s.waitHTTP(etcdURL+"/health", nil, s.etcdExit, "etcd", 60*time.Second); err != nil {
		return nil, err
	}
	insecure := &http.Client{Transport: &http.Transport{TLSClientConfig: insecureTLS()}, Timeout: 5 * time.Second}
	if err := s.waitHTTP(s.Host+"/readyz", insecure, s.apiserverExit, "kube-apiserver", 120*time.Second); err != nil {
		return nil, err
	}
	if s.ca, err = os.ReadFile(filepath.Join(dir, "certs", "apiserver.crt")); err != nil {
		return nil, err
	}
	ok = true
	return s, nil
}

// APIServerFlags are the kube-apiserver flags Start adds to the ones it
// must set (addresses, certificates, tokens, RBAC): they turn off what no
// test uses and what costs CPU while the server starts and runs. A test
// binary that needs more (another API group, say) or one of these on
// changes the list in its TestMain, before the first Start.
//
//   - API Priority and Fairness (its configuration controller and
//     per-request classification; no test counts on the server queueing or
//     refusing a request) and the profiling endpoints.
//   - Only the API groups optimus and the tests call (--runtime-config):
//     core v1 (pods, services, nodes, namespaces, resource quotas),
//     coordination.k8s.io (the apply Lease), authorization.k8s.io and
//     authentication.k8s.io (the access checks, SelfSubjectReview),
//     rbac.authorization.k8s.io (the RBAC authorizer and the tests' Roles),
//     apiextensions.k8s.io (the PyTorchJob CRD). The server itself needs
//     apiregistration.k8s.io (its aggregator), networking.k8s.io and
//     discovery.k8s.io (the Service IP allocator's ServiceCIDRs and
//     IPAddresses, the kubernetes Service's EndpointSlices) and
//     admissionregistration.k8s.io (webhook configurations it watches);
//     it does not start without them. Every other group (apps, batch,
//     storage, scheduling, resource, certificates, ...) costs a storage
//     and watch cache each and its share of the OpenAPI spec built before
//     the server serves.
//   - The admission plugins of the groups turned off, or of objects no test
//     makes (storage classes, volumes, certificates, priority classes,
//     runtime classes, ingress classes, webhooks and admission policies),
//     PodSecurity (no test labels a namespace with a pod security level)
//     and ServiceAccount (no test creates service accounts; see
//     K8S-TESTING.md). NamespaceLifecycle, LimitRanger, ResourceQuota
//     (tests rely on quota refusals), TaintNodesByCondition and
//     DefaultTolerationSeconds stay, as on a real cluster.
var APIServerFlags = []string{
	"--enable-priority-and-fairness=false",
	"--profiling=false",
	"--runtime-config=api/all=false,api/v1=true," +
		"coordination.k8s.io/v1=true,authorization.k8s.io/v1=true,authentication.k8s.io/v1=true," +
		"rbac.authorization.k8s.io/v1=true,apiextensions.k8s.io/v1=true,apiregistration.k8s.io/v1=true," +
		"networking.k8s.io/v1=true,discovery.k8s.io/v1=true,admissionregistration.k8s.io/v1=true",
	"--disable-admission-plugins=ServiceAccount,PodSecurity,Priority,RuntimeClass," +
		"DefaultStorageClass,StorageObjectInUseProtection,PersistentVolumeClaimResize,PodGroupProtection," +
		"CertificateApproval,CertificateSigning,CertificateSubjectRestriction,ClusterTrustBundleAttest," +
		"DefaultIngressClass,MutatingAdmissionPolicy,MutatingAdmissionWebhook,ValidatingAdmissionPolicy,ValidatingAdmissionWebhook",
}

// tempRoot is where Start puts its directory (etcd's data among it):
// /dev/shm when it is a writable directory, so that etcd's writes never
// reach a disk; else the default temporary directory.
func tempRoot() string {
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		if f, err := os.CreateTemp("/dev/shm", "optimus-ktest-probe-"); err == nil {
			f.Close()
			os.Remove(f.Name())
			return "/dev/shm"
		}
	}
	return ""
}

func launch(dir, name, bin string, args ...string) (*exec.Cmd, chan error, error) {
	logf, err := os.Create(filepath.Join(dir, name+".log"))
	if err != nil {
		return nil, nil, err
	}
	gogc, err := serverGOGC()
	if err != nil {
		logf.Close()
		return nil, nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Env = append(os.Environ(), "GOGC="+gogc)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // never outlive the test
	if err := cmd.Start(); err != nil {
		logf.Close()
		return nil, nil, fmt.Errorf("starting %s: %v", name, err)
	}
	exit := make(chan error, 1)
	go func() { exit <- cmd.Wait(); logf.Close() }()
	return cmd, exit, nil
}

// serverGOGC is the Go garbage collector's target for etcd and
// kube-apiserver: their heaps in a test are small, so collecting less often
// (400: a heap up to five times the live one) trades memory the machine has
// for CPU the tests share (benchmarks/test-time-sessions2-5.md, session 5).
// OPTIMUS_KTEST_GOGC overrides it, for measuring: "off" or a percentage
// (the Go runtime would ignore anything else silently, so it is an error).
func serverGOGC() (string, error) {
	v := os.Getenv("OPTIMUS_KTEST_GOGC")
	if v == "" {
		return "400", nil
	}
	if n, err := strconv.Atoi(v); v != "off" && (err != nil || n < 0) {
		return "", fmt.Errorf("OPTIMUS_KTEST_GOGC=%q: want off or a non-negative integer", v)
	}
	return v, nil
}

// waitHTTP waits for url to answer 200, failing early when the process exits.
func (s *Server) waitHTTP(url string, c *http.Client, exit chan error, name string, limit time.Duration) error {
	if c == nil {
		c = &http.Client{Timeout: 5 * time.Second}
	}
	deadline := time.Now().Add(limit)
	for {
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		req.Header.Set("Authorization", "Bearer "+AdminToken)
		if resp, err := c.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case err := <-exit:
			exit <- err
			return fmt.Errorf("%s exited (%v); its log ends:\n%s", name, err, s.logTail(name))
		case <-time.After(50 * time.Millisecond): // a test binary waits on this: poll often, it is one local request
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not ready after %s; its log ends:\n%s", name, limit, s.logTail(name))
		}
	}
}

func (s *Server) logTail(name string) string {
	b, _ := os.ReadFile(filepath.Join(s.Dir, name+".log"))
	if len(b) > 3000 {
		b = b[len(b)-3000:]
	}
	return string(b)
}

// Stop kills the API server, then etcd, and removes the directory. They
// are killed, not asked to stop: their store is thrown away with the
// directory, and kube-apiserver's graceful shutdown took over a second at
// the end of every test binary. With OPTIMUS_KTEST_CPU set to a file, it
// appends each server's user and system CPU seconds to it
// ("kube-apiserver 3.16 u 0.89 s"): how a test binary's CPU splits between
// itself and the servers it waited for.
func (s *Server) Stop() {
	if f := os.Getenv("OPTIMUS_KTEST_REQUESTS"); f != "" && s.ca != nil {
		s.writeRequestCounts(f)
	}
	for _, p := range []struct {
		cmd  *exec.Cmd
		exit chan error
	}{{s.apiserver, s.apiserverExit}, {s.etcd, s.etcdExit}} {
		if p.cmd == nil || p.cmd.Process == nil {
			continue
		}
		_ = p.cmd.Process.Kill()
		<-p.exit
		if f := os.Getenv("OPTIMUS_KTEST_CPU"); f != "" && p.cmd.ProcessState != nil {
			if out, err := os.OpenFile(f, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
				fmt.Fprintf(out, "%s %.2f u %.2f s\n", filepath.Base(p.cmd.Path), p.cmd.ProcessState.UserTime().Seconds(), p.cmd.ProcessState.SystemTime().Seconds())
				out.Close()
			}
		}
	}
	if s.Dir != "" {
		os.RemoveAll(s.Dir)
	}
}

// writeRequestCounts appends the API server's request counts
// (apiserver_request_total, by verb, resource and subresource) to file f:
// which requests a test binary's server spent its CPU on.
func (s *Server) writeRequestCounts(f string) {
	req, _ := http.NewRequest(http.MethodGet, s.Host+"/metrics", nil)
	req.Header.Set("Authorization", "Bearer "+AdminToken)
	resp, err := (&http.Client{Transport: &http.Transport{TLSClientConfig: insecureTLS()}, Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		return
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	out, err := os.OpenFile(f, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	defer out.Close()
	for _, line := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(line, "apiserver_request_total{") {
			fmt.Fprintln(out, line)
		}
	}
}

// Config is a client configuration for the given token.
func (s *Server) Config(token string) *rest.Config {
	return &rest.Config{Host: s.Host, BearerToken: token, TLSClientConfig: rest.TLSClientConfig{CAData: s.ca},
		QPS: 500, Burst: 1000}
}

// Admin is a client with every right.
func (s *Server) Admin() kubernetes.Interface {
	return kubernetes.NewForConfigOrDie(s.Config(AdminToken))
}

// WriteKubeconfig writes a kubeconfig for token into dir and returns its path.
func (s *Server) WriteKubeconfig(dir, token, namespace string) (string, error) {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["ktest"] = &clientcmdapi.Cluster{Server: s.Host, CertificateAuthorityData: s.ca}
	cfg.AuthInfos["ktest"] = &clientcmdapi.AuthInfo{Token: token}
	cfg.Contexts["ktest"] = &clientcmdapi.Context{Cluster: "ktest", AuthInfo: "ktest", Namespace: namespace}
	cfg.CurrentContext = "ktest"
	path := filepath.Join(dir, "kubeconfig")
	return path, clientcmd.WriteToFile(*cfg, path)
}

// writeKeys writes the service-account signing key pair: ECDSA P-256,
// which the API server accepts as RSA (ES256 tokens) and which takes
// microseconds to make, where a 2048-bit RSA key took a CPU share of a
// second on a loaded machine; no test creates service-account tokens.
func writeKeys(dir string) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	pub, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return err
	}
	priv, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "sa.key"), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: priv}), 0o600); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "sa.pub"), pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub}), 0o600)
}

// ErrNotReady is returned by waits that ran out of time.
var ErrNotReady = errors.New("ktest: not ready")

// Eventually polls cond until it is true or limit passes.
func Eventually(ctx context.Context, limit time.Duration, cond func() bool) error {
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			return ErrNotReady
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return nil
}
