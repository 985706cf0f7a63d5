package main

import (
	"runtime/debug"
	"strings"
	"testing"
)

// The light binary links no Kubernetes client (issue 25: its start-up
// initialises none of it). This test binary links what main links, so its
// modules are the binary's.
func TestLightBinaryLinksNoKubernetesModule(t *testing.T) {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		t.Fatal("no build information in the test binary")
	}
	if len(info.Deps) == 0 {
		t.Fatal("the build information lists no modules: the check would pass vacuously")
	}
	for _, m := range info.Deps {
		if strings.HasPrefix(m.Path, "k8s.io/") || strings.HasPrefix(m.Path, "sigs.k8s.io/") {
			t.Errorf("optimus links %s %s: the Kubernetes family belongs in optimus-kubernetes (executor/allkube)", m.Path, m.Version)
		}
	}
}
