package chartcmd_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/optimus-sched/optimus/chart"
	"github.com/optimus-sched/optimus/cli/chartcmd"
	"github.com/optimus-sched/optimus/cli/clitest"
	"github.com/optimus-sched/optimus/cli/iostreams"
)

// Every kind's command line parses into the kind and the files by input:
// -i repeated for the main table, each side table by its flag, --job and
// --seed for the kinds that take them; a side flag of one kind is unknown
// to the others.
func TestKindCommandLines(t *testing.T) {
	for _, k := range chart.Kinds() {
		t.Run(k.Name, func(t *testing.T) {
			newCmd := func(ios *iostreams.IOStreams, runF func(*chartcmd.Options) error) *cobra.Command {
				return chartcmd.NewCmdKind(ios, k, runF)
			}
			args := []string{"-i", "a.parquet", "-i", "b.parquet", "-o", "page.html"}
			want := map[string][]string{chart.Main: {"a.parquet", "b.parquet"}}
			for _, in := range k.Inputs[1:] {
				args = append(args, "--"+in.Flag, in.Flag+".parquet")
				want[in.Flag] = []string{in.Flag + ".parquet"}
			}
			if k.PerJob {
				args = append(args, "--job", "resnet50-a", "--job", "vgg16-b")
			}
			if k.Seeded {
				args = append(args, "--seed", "3,1", "--seed", "2")
			}
			got := clitest.MustParse(t, newCmd, args...)
			if got.Kind != k || got.Output != "page.html" || !reflect.DeepEqual(got.Inputs, want) {
				t.Errorf("kind %s, output %q, inputs %v; want %s, page.html, %v", got.Kind.Name, got.Output, got.Inputs, k.Name, want)
			}
			if wantJobs := []string{"resnet50-a", "vgg16-b"}; k.PerJob && !reflect.DeepEqual(got.Jobs, wantJobs) {
				t.Errorf("--job: %v, want %v", got.Jobs, wantJobs)
			}
			if wantSeeds := []int64{3, 1, 2}; k.Seeded && !reflect.DeepEqual(got.Seeds, wantSeeds) {
				t.Errorf("--seed: %v, want %v", got.Seeds, wantSeeds)
			}
			for _, flag := range []string{"--job", "--seed"} {
				if flag == "--job" && k.PerJob || flag == "--seed" && k.Seeded {
					continue
				}
				if opts, code, stderr := clitest.Parse(t, newCmd, "-i", "a.parquet", flag, "1"); opts != nil || code != 2 || !strings.Contains(stderr, "unknown flag: "+flag) {
					t.Errorf("%s: exit %d, %q: want exit 2, unknown flag", flag, code, stderr)
				}
			}
		})
	}
}
