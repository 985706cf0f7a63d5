package reportcmd_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/optimus-sched/optimus/chart"
	"github.com/optimus-sched/optimus/chart/charttest"
)

var optionsRE = regexp.MustCompile(`(?s)<script type="application/json" id="options-([a-z]+_[0-9]+)">(.*?)</script>`)

// policyColoursOf reads the colour of every series of a page named after
// one of policies (alone or with its knowledge, "drf (oracle)"), by policy,
// and fails when one policy has two colours on the page.
func policyColoursOf(t *testing.T, file string, policies []string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, p := range policies {
		known[p] = true
	}
	out := map[string]string{}
	for _, m := range optionsRE.FindAllStringSubmatch(string(b), -1) {
		var block struct {
			Option struct {
				Series []struct {
					Name      string `json:"name"`
					LineStyle struct {
						Color string `json:"color"`
					} `json:"lineStyle"`
					ItemStyle struct {
						Color string `json:"color"`
					} `json:"itemStyle"`
				} `json:"series"`
			} `json:"option"`
		}
		if err := json.Unmarshal([]byte(m[2]), &block); err != nil {
			t.Fatalf("%s: chart %s: %v", file, m[1], err)
		}
		for _, s := range block.Option.Series {
			name, _, _ := strings.Cut(s.Name, " (")
			if !known[name] {
				continue
			}
			c := s.LineStyle.Color
			if c == "" {
				c = s.ItemStyle.Color
			}
			if c == "" {
				t.Errorf("%s: chart %s: series %q has no colour", filepath.Base(file), m[1], s.Name)
				continue
			}
			if prev, ok := out[name]; ok && prev != c {
				t.Errorf("%s: policy %s is %s in one chart and %s in chart %s", filepath.Base(file), name, prev, c, m[1])
			}
			out[name] = c
		}
	}
	return out
}

// Every policy has one colour on every page, whichever policies a run has
// and in whatever order, and no two policies of a page share one: the
// allocation page, the simulation page and the report, of the testbed's
// pipeline and of simulate's testbed, with the policies in different
// orders and sets, and one policy the palette does not list (an
// allocation named by its file).
func TestOnePolicyOneColourOnEveryPage(t *testing.T) {
	charttest.NeedAssets(t, chart.CheckAssets())
	dir := t.TempDir()
	tb := filepath.Join(dir, "testbed")
	sim := filepath.Join(dir, "sim")
	steps := [][]string{
		{"datasets", "export", "testbed", "-o", tb},
		{"fit", "-i", tb + "/loss.parquet", "--speed", tb + "/speed.parquet", "--jobs", tb + "/jobs.parquet", "-o", dir + "/models.parquet"},
		{"predict", "-i", tb + "/jobs.parquet", "--models", dir + "/models.parquet", "-o", dir + "/predictions.parquet"},
	}
	for _, p := range []string{"optimus", "drf", "tetris", "fifo", "tiresias"} {
		steps = append(steps, []string{"solve", "--cluster", tb + "/cluster.parquet", "-i", dir + "/predictions.parquet", "--policy", p, "-o", dir + "/allocation-" + p + ".parquet"})
	}
	alloc := func(p string) string { return dir + "/allocation-" + p + ".parquet" }
	steps = append(steps,
		[]string{"simulate", "--seeds", "1", "--policies", "tiresias,fifo,optimus,drf,tetris", "--knowledge", "fitted,oracle", "-q", "--dir", sim, "-o", dir + "/summary.csv"},
		[]string{"chart", "allocation", "-i", alloc("drf"), "-i", alloc("optimus"), "-i", alloc("fifo"), "-i", alloc("tetris"), "--cluster", tb + "/cluster.parquet", "-o", dir + "/allocation.html"},
		[]string{"chart", "simulation", "-i", sim + "/sim_jobs.parquet", "--allocations", sim + "/sim_allocations.parquet", "--utilisation", sim + "/sim_utilisation.parquet", "-o", dir + "/simulation.html"},
		[]string{"report", "--cluster", tb + "/cluster.parquet", "--allocation", alloc("tiresias"), "--allocation", alloc("optimus"), "--simulation", sim, "-o", dir + "/report.html"},
	)
	for _, args := range steps {
		if code, _, stderr := optimus.Run(t, nil, args...); code != 0 {
			t.Fatalf("optimus %s: exit %d: %s", strings.Join(args, " "), code, stderr)
		}
	}
	// An allocation without alloc_policy is named by its file: a policy the
	// palette does not know.
	policies := []string{"optimus", "drf", "tetris", "fifo", "tiresias"}
	pages := map[string][]string{ // page: the policies it must draw
		"allocation.html": {"drf", "optimus", "fifo", "tetris"},
		"simulation.html": policies,
		"report.html":     policies,
	}
	seen := map[string]string{} // policy: colour, over every page
	var names []string
	for n := range pages {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, page := range names {
		got := policyColoursOf(t, filepath.Join(dir, page), policies)
		byColour := map[string]string{}
		for _, p := range pages[page] {
			c, ok := got[p]
			if !ok {
				t.Errorf("%s draws no series of policy %s", page, p)
				continue
			}
			if other, dup := byColour[c]; dup {
				t.Errorf("%s: policies %s and %s share the colour %s", page, other, p, c)
			}
			byColour[c] = p
			if prev, ok := seen[p]; ok && prev != c {
				t.Errorf("policy %s is %s on one page and %s on %s", p, prev, c, page)
			}
			seen[p] = c
		}
	}
}

var regexpManifest = regexp.MustCompile(`<script type="application/json" id="optimus-charts">(.*?)</script>`)
