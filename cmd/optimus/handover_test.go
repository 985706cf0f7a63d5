package main

import (
	"bytes"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The light binary links no client-go (issue 25: start-up), yet takes the
// Kubernetes family's flags as the full one does: it reports their errors
// itself, says how to install optimus-kubernetes when it is missing, and
// otherwise hands the command over to it, on the same standard streams,
// with its exit status. This test binary, which links what main links,
// stands in for the light binary (TestMain); optimus-kubernetes is built
// once, from this tree.
func TestLightBinaryHandsKubernetesOver(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("go is needed to build the binaries: %v", err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	both := t.TempDir()
	// go run keeps the executables it links in the build cache (go build
	// links anew every time), so a run of the tests after one at the same
	// tree links nothing; this test binary, as go run's -exec program
	// (TestMain), copies the executable instead of running it.
	// Without DWARF: a quarter of the link time, and the binary does the same.
	build := exec.Command(goBin, "run", "-exec", self, "-ldflags=-s -w", "../optimus-kubernetes")
	build.Env = append(os.Environ(), copyProgramTo+"="+filepath.Join(both, "optimus-kubernetes"))
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go run -exec: %v\n%s", err, out)
	}
	copyFile(t, self, filepath.Join(both, "optimus"))
	light := filepath.Join(t.TempDir(), "optimus") // alone in its directory
	copyFile(t, self, light)
	// A light binary under the full one's name: it must not hand over in
	// a loop.
	loop := t.TempDir()
	copyFile(t, light, filepath.Join(loop, "optimus"))
	copyFile(t, light, filepath.Join(loop, "optimus-kubernetes"))

	data := t.TempDir()
	d := func(name string) string { return filepath.Join(data, name) }
	// PATH holds no optimus-kubernetes; no kubeconfig but the ones given.
	env := []string{"PATH=" + t.TempDir(), "HOME=" + data, "KUBECONFIG=", asOptimus + "=1"}
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); k != "PATH" && k != "HOME" && k != "KUBECONFIG" && k != "OPTIMUS_KUBERNETES_FROM" && k != asOptimus {
			env = append(env, kv)
		}
	}
	run := func(bin string, stdin []byte, args ...string) (int, string, string) {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Env, cmd.Stdin = env, bytes.NewReader(stdin)
		var out, errOut bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatalf("%s %v: %v", bin, args, err)
		}
		return cmd.ProcessState.ExitCode(), out.String(), errOut.String()
	}
	must := func(args ...string) {
		t.Helper()
		if code, _, stderr := run(light, nil, args...); code != 0 {
			t.Fatalf("optimus %s: exit %d: %s", strings.Join(args, " "), code, stderr)
		}
	}
	// The testbed's plan, made by the light binary.
	must("datasets", "export", "testbed", "-o", d("tb"))
	must("fit", "-i", d("tb/loss.parquet"), "--speed", d("tb/speed.parquet"), "--jobs", d("tb/jobs.parquet"), "-o", d("models.parquet"))
	must("predict", "-i", d("tb/jobs.parquet"), "--models", d("models.parquet"), "-o", d("predictions.parquet"))
	must("solve", "--cluster", d("tb/cluster.parquet"), "-i", d("predictions.parquet"), "-o", d("allocation.parquet"))
	must("place", "--cluster", d("tb/cluster.parquet"), "-i", d("allocation.parquet"), "-o", d("plan.parquet"))
	plan, err := os.ReadFile(d("plan.parquet"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(d("bad.yaml"), []byte("clusters: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A cluster that refuses connections: a port just let go of.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	kubeconfig := "apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster: {server: \"https://" + addr + "\"}\n" +
		"users:\n- name: u\n  user: {token: t}\ncontexts:\n- name: x\n  context: {cluster: c, user: u, namespace: training}\ncurrent-context: x\n"
	if err := os.WriteFile(d("refused.yaml"), []byte(kubeconfig), 0o644); err != nil {
		t.Fatal(err)
	}
	apply := []string{"apply", "-i", d("plan.parquet"), "--jobs", d("tb/jobs.parquet"), "--executor", "kubernetes"}

	for _, c := range []struct {
		name  string
		bin   string
		stdin []byte
		args  []string
		code  int
		want  []string // in standard error
		out   string   // in standard output
	}{
		// Flag errors are the light binary's own, with the full binary's
		// messages, whether or not optimus-kubernetes is installed.
		{"namespace", light, nil, append(apply, "--namespace", "Bad_NS"), 2,
			[]string{`optimus: --namespace "Bad_NS" is not a Kubernetes namespace name: a lowercase RFC 1123 label`}, ""},
		{"burst", light, nil, append(apply, "--burst", "-1"), 2, []string{"optimus: kubernetes: --burst must be 0 (twice --qps) or more"}, ""},
		{"current", light, nil, append(apply, "--current", d("plan.parquet")), 2,
			[]string{"optimus: --current, --state and --cluster apply to print and exec: the kubernetes executor reads what runs and the nodes from the cluster"}, ""},
		{"snapshot namespace", light, nil, []string{"snapshot", "pytorchjob", "-o", d("snap"), "-n", "A"}, 2,
			[]string{`optimus: --namespace "A" is not a Kubernetes namespace name`}, ""},
		{"metrics option", light, nil, []string{"metrics", data, "-o", d("m"), "--source", "kubernetes", "--kubernetes-index", "x"}, 2,
			[]string{`optimus: --kubernetes-index "x": give a task index of at least 0, or all`}, ""},
		// A valid command line without optimus-kubernetes: how to install it.
		{"missing", light, nil, append(apply, "-o", d("actions.parquet")), 2,
			[]string{"optimus: the kubernetes executor needs optimus-kubernetes, the optimus binary with the Kubernetes client, which is neither in " + filepath.Dir(light) + " nor on PATH: install both binaries with `go install ./cmd/...`"}, ""},
		{"missing manifests", light, nil, []string{"apply", "-i", d("plan.parquet"), "--jobs", d("tb/jobs.parquet"), "--executor", "print", "--manifests"}, 2,
			[]string{"optimus: print --manifests needs optimus-kubernetes"}, ""},
		{"loop", filepath.Join(loop, "optimus"), nil, apply, 2,
			[]string{"does not link the kubernetes executor either (run by " + filepath.Join(loop, "optimus") + "): install both binaries again"}, ""},
		// Installed next to optimus: it runs the command, reading the plan
		// from the same standard input; client-go's errors and the exit
		// status are its.
		{"kubeconfig", filepath.Join(both, "optimus"), plan, []string{"apply", "--jobs", d("tb/jobs.parquet"), "--executor", "kubernetes", "--kubeconfig", d("bad.yaml")}, 2,
			[]string{`optimus: kubernetes: error loading config file "` + d("bad.yaml") + `": yaml: `}, ""},
		{"refused", filepath.Join(both, "optimus"), plan, []string{"apply", "--jobs", d("tb/jobs.parquet"), "--executor", "kubernetes", "--kubeconfig", d("refused.yaml"), "--timeout", "5s"}, 1,
			[]string{"optimus: kubernetes: get namespaces", "connection refused"}, ""},
		{"snapshot", filepath.Join(both, "optimus"), nil, []string{"snapshot", "kubernetes", "-o", d("snap"), "--kubeconfig", d("bad.yaml")}, 2,
			[]string{`optimus: kubernetes: error loading config file "` + d("bad.yaml")}, ""},
		{"metrics", filepath.Join(both, "optimus"), nil, []string{"metrics", data, "-o", d("m"), "--source", "kubernetes", "--kubernetes-kubeconfig", d("refused.yaml")}, 1,
			[]string{"connection refused"}, ""},
		// Its standard output is the light binary's: the manifests.
		{"manifests", filepath.Join(both, "optimus"), nil, []string{"apply", "-i", d("plan.parquet"), "--jobs", d("tb/jobs.parquet"), "--executor", "print", "--manifests", "-o", d("planned.csv")}, 0,
			nil, "kind: Pod\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := run(c.bin, c.stdin, c.args...)
			if code != c.code {
				t.Errorf("exit %d, want %d:\n%s", code, c.code, stderr)
			}
			for _, w := range c.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("standard error %q lacks %q", stderr, w)
				}
			}
			if c.code == 2 && c.bin == light && strings.Contains(stderr, "kubernetes: error loading") {
				t.Errorf("the light binary ran client-go: %s", stderr)
			}
			if !strings.Contains(stdout, c.out) || c.out == "" && stdout != "" {
				t.Errorf("standard output %.200q, want it to hold %q", stdout, c.out)
			}
		})
	}
	// The light binary stopped before it wrote anything.
	if _, err := os.Stat(d("actions.parquet")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("actions.parquet after the light binary stopped: %v", err)
	}
}

// asOptimus makes this test binary run as optimus: main, not the tests.
const asOptimus = "OPTIMUS_TEST_BINARY_IS_OPTIMUS"

// copyProgramTo makes this test binary copy its first argument to the
// path it holds and exit: go run's -exec program, it copies the executable
// go run built.
const copyProgramTo = "OPTIMUS_TEST_BINARY_COPIES_PROGRAM_TO"

func TestMain(m *testing.M) {
	if os.Getenv(asOptimus) == "1" {
		main()
	}
	if to := os.Getenv(copyProgramTo); to != "" && len(os.Args) == 2 {
		b, err := os.ReadFile(os.Args[1])
		if err == nil {
			err = os.WriteFile(to, b, 0o755)
		}
		if err != nil {
			os.Stderr.WriteString(err.Error() + "\n")
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o755); err != nil {
		t.Fatal(err)
	}
}
