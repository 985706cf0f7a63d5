package applycmd_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Namespaces, node names and images that cannot be Kubernetes' are refused
// with exit 2 and nothing on standard output, for print --manifests as for
// the kubernetes executor: they would reach paths, URLs and YAML.
func TestManifestsRefuseHostileNames(t *testing.T) {
	dir := testbedPlan(t)
	tmp := t.TempDir()
	first := true
	spacedImage := editCSV(t, dir+"/jobs.csv", filepath.Join(tmp, "jobs-space.csv"), func(l string) string {
		if first {
			first = false
			return strings.Replace(l, "mxnet-train:1.9", "mxnet-train:1.9 --privileged", 1)
		}
		return l
	})
	first = true
	newlineNode := editCSV(t, dir+"/plan.csv", filepath.Join(tmp, "plan-newline.csv"), func(l string) string {
		if first && strings.Contains(l, ",gpu-01,") {
			first = false
			return strings.Replace(l, ",gpu-01,", ",\"gpu-01\nkind: Secret\",", 1)
		}
		return l
	})
	badTemplates := filepath.Join(tmp, "templates")
	if err := os.MkdirAll(badTemplates, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(badTemplates, "default.yaml"), []byte("spec:\n  tolerations:\n    - key: a\n      efect: NoSchedule\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"namespace with a path", []string{"--namespace", "../kube-system"}, `--namespace "../kube-system" is not a Kubernetes namespace name`},
		{"namespace with a newline", []string{"--namespace", "ml\nkind: Secret"}, `is not a Kubernetes namespace name`},
		{"image with a space", []string{"--jobs", spacedImage}, `image "example.com/optimus/mxnet-train:1.9 --privileged" has white space`},
		{"node with a newline", []string{"-i", newlineNode}, `node "gpu-01\nkind: Secret" is not a Kubernetes node name`},
		{"template with an unknown field", []string{"--pod-templates", badTemplates}, `unknown field "spec.tolerations[0].efect"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"apply", "-i", dir + "/plan.csv", "--jobs", dir + "/jobs.csv", "--executor", "print", "--manifests"}
			args = append(args, tc.args...)
			code, out, stderr := optimus.Run(t, nil, args...)
			if code != 2 || len(out) != 0 || !strings.Contains(stderr, tc.want) {
				t.Fatalf("exit %d, %d bytes out, stderr %q; want exit 2, nothing out, %q", code, len(out), stderr, tc.want)
			}
			t.Logf("%s", strings.TrimSpace(stderr))
		})
	}
	// The kubernetes executor refuses the namespace before connecting.
	code, _, stderr := optimus.Run(t, nil, "apply", "-i", dir+"/plan.csv", "--jobs", dir+"/jobs.csv", "--executor", "kubernetes",
		"--namespace", "../kube-system", "--kubeconfig", filepath.Join(tmp, "none"))
	if code != 2 || !strings.Contains(stderr, "is not a Kubernetes namespace name") {
		t.Errorf("kubernetes --namespace ../kube-system: exit %d, %s", code, stderr)
	}
}

// --pod-templates reaches the manifests: the testbed's jobs (model
// families resnet-50, vgg-16, ...) take executor/kubernetes' example
// default template.
func TestManifestsWithPodTemplates(t *testing.T) {
	dir := testbedPlan(t)
	out, _ := optimus.MustRun(t, nil, "apply", "-i", dir+"/plan.csv", "--jobs", dir+"/jobs.csv", "--executor", "print", "--manifests",
		"--pod-templates", "../../executor/kubernetes/testdata/templates")
	s := string(out)
	for _, want := range []string{"name: log-shipper", "key: dedicated", "OPTIMUS_CHECKPOINT_DIR", "mountPath: /ckpt", "serviceAccountName: trainer"} {
		if !strings.Contains(s, want) {
			t.Errorf("manifests lack %q", want)
		}
	}
}
