package kubeopts

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/optimus-sched/optimus/executor"
)

// The light binary's namespace check says what apimachinery's would, word
// for word (the full binary checked with it before the split).
func TestDNS1123LabelAsApimachinery(t *testing.T) {
	cases := []string{"", "a", "training", "my-name", "123-abc", "-a", "a-", "A", "a_b", "a.b", "a..b", ".a", "a.",
		"a b", "a\nb", "é", "a/b", strings.Repeat("a", 63), strings.Repeat("a", 64), strings.Repeat("a.", 40) + "a",
		strings.Repeat("-", 70), "0", "a--b", "x.y-z", "ns\x00"}
	for _, s := range cases {
		if got, want := dns1123Label(s), validation.IsDNS1123Label(s); !slices.Equal(got, want) {
			t.Errorf("%q: %q, apimachinery %q", s, got, want)
		}
	}
	if err := CheckNamespace("Bad"); err == nil || !strings.HasPrefix(err.Error(), `--namespace "Bad" is not a Kubernetes namespace name: a lowercase RFC 1123 label`) {
		t.Errorf("CheckNamespace(Bad): %v", err)
	}
	if err := CheckNamespace(""); err != nil {
		t.Errorf(`CheckNamespace(""): %v`, err)
	}
}

// Without the client-go packages every configuration says what it lacks,
// and using one anyway is an error naming it (exit 2), not a nil executor.
func TestUnlinkedWithoutClientGo(t *testing.T) {
	for _, c := range []interface{ Unlinked() string }{&KubernetesConfig{}, &PyTorchJobConfig{}, &SnapshotConfig{}, &PyTorchJobSnapshotConfig{}} {
		if c.Unlinked() == "" {
			t.Errorf("%T: Unlinked is empty in a program without executor/kubernetes", c)
		}
	}
	_, err := (&KubernetesConfig{}).New(t.Context(), executor.Env{})
	var ce *ConfigError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "the kubernetes executor is not linked into this program") {
		t.Errorf("New: %v", err)
	}
}
