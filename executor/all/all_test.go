package all_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/optimus-sched/optimus/executor"
	_ "github.com/optimus-sched/optimus/executor/all"
)

// Every executor is linked in, in the order lists show them, and each
// kind's configuration defines flags apply can bind: a flag two kinds share
// has one type, and a Needs annotation names a flag of the same kind.
func TestRegistry(t *testing.T) {
	if got, want := executor.Names(), []string{"print", "exec", "kubernetes", "pytorchjob"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("executors %v, want %v", got, want)
	}
	types := map[string]string{}
	for _, k := range executor.Kinds() {
		if executor.Lookup(k.Name) != k {
			t.Errorf("Lookup(%q) is not its kind", k.Name)
		}
		fs := pflag.NewFlagSet(k.Name, pflag.ContinueOnError)
		k.NewConfig().AddFlags(fs)
		n := 0
		fs.VisitAll(func(f *pflag.Flag) {
			n++
			if typ, ok := types[f.Name]; ok && typ != f.Value.Type() {
				t.Errorf("--%s: a %s for %s, a %s for another kind", f.Name, f.Value.Type(), k.Name, typ)
			}
			types[f.Name] = f.Value.Type()
			for _, need := range f.Annotations[executor.Needs] {
				if fs.Lookup(need) == nil {
					t.Errorf("%s: --%s needs --%s, which %s does not define", k.Name, f.Name, need, k.Name)
				}
			}
		})
		if n == 0 {
			t.Errorf("%s defines no flags", k.Name)
		}
	}
}

// A flag whose value is a FILE (its usage's placeholder) is among its
// kind's or source's FileFlags, so that the shell completes it with files;
// Register refuses FileFlags that name no flag.
func TestFileFlagsListEveryFileFlag(t *testing.T) {
	check := func(what string, add func(*pflag.FlagSet), files []string) {
		fs := pflag.NewFlagSet(what, pflag.ContinueOnError)
		add(fs)
		listed := map[string]bool{}
		for _, f := range files {
			listed[f] = true
		}
		fs.VisitAll(func(f *pflag.Flag) {
			if name, _ := pflag.UnquoteUsage(f); name == "FILE" && !listed[f.Name] {
				t.Errorf("%s: --%s takes a FILE but is not among its FileFlags %v", what, f.Name, files)
			}
		})
	}
	for _, k := range executor.Kinds() {
		check("executor "+k.Name, k.NewConfig().AddFlags, k.FileFlags)
	}
	for _, s := range executor.Sources() {
		check("snapshot source "+s.Name, s.NewConfig().AddFlags, s.FileFlags)
	}
	if got, want := executor.FileFlags(), []string{"cluster", "kubeconfig", "program", "state"}; !reflect.DeepEqual(got, want) {
		t.Errorf("FileFlags %v, want %v", got, want)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "lists --nonesuch among its FileFlags") {
			t.Errorf("Register with an undefined file flag: %v", r)
		}
	}()
	executor.Register(&executor.Kind{Name: "bad-file-flag", Short: "s", Long: "l", FileFlags: []string{"nonesuch"},
		NewConfig: executor.Lookup("exec").NewConfig})
}
