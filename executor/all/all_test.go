package all_test

import (
	"reflect"
	"testing"

	"github.com/spf13/pflag"

	"github.com/optimus-sched/optimus/executor"
	_ "github.com/optimus-sched/optimus/executor/all"
)

// Every executor is linked in, in the order lists show them, and each
// kind's configuration defines flags apply can bind: a flag two kinds share
// has one type, and a Needs annotation names a flag of the same kind.
func TestRegistry(t *testing.T) {
	if got, want := executor.Names(), []string{"print", "exec", "kubernetes"}; !reflect.DeepEqual(got, want) {
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
