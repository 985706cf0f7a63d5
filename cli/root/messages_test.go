package root

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// "internal error" means a bug: input that drives a computation out of
// range, and a kubeconfig that is not one, are the input's fault and say
// so, naming the file (and its column and row), exit 2, writing nothing.
// Before the fixes: solve and predict said "internal error" naming an
// output column (alloc_gain +Inf, remaining_steps +Inf), and a kubeconfig
// that is not YAML was exit 1.
func TestInputErrorsAreNotInternal(t *testing.T) {
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	for _, args := range [][]string{
		{"datasets", "export", "testbed", "-o", dir, "--format", "csv"},
		{"fit", "-i", p("loss.csv"), "--speed", p("speed.csv"), "--jobs", p("jobs.csv"), "-o", p("models.csv")},
		{"predict", "-i", p("jobs.csv"), "--models", p("models.csv"), "-o", p("predictions.csv")},
		{"solve", "--cluster", p("cluster.csv"), "-i", p("predictions.csv"), "-o", p("allocation.csv")},
		{"place", "--cluster", p("cluster.csv"), "-i", p("allocation.csv"), "-o", p("plan.csv")},
	} {
		if code, _, stderr := Run(nil, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
	}
	// edit sets columns of every row (row 0: all rows) of a CSV table.
	edit := func(from, to string, set map[string]string) string {
		raw, _ := os.ReadFile(p(from))
		lines := strings.Split(strings.TrimRight(string(raw), "\n"), "\n")
		header := strings.Split(lines[0], ",")
		for i := 1; i < len(lines); i++ {
			cells := splitCSVLine(lines[i])
			for c, name := range header {
				if v, ok := set[name]; ok {
					cells[c] = v
				}
			}
			lines[i] = strings.Join(cells, ",")
		}
		if err := os.WriteFile(p(to), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		return p(to)
	}
	huge := edit("predictions.csv", "huge.csv", map[string]string{"remaining_steps_p10": "1e308", "remaining_steps_p50": "1e308", "remaining_steps_p90": "1e308", "weight": "1000000"})
	slow := edit("predictions.csv", "slow.csv", map[string]string{"remaining_steps_p50": "9e18", "weight": "1000000", "speed_theta0": "1e300"})
	budget := edit("jobs.csv", "budget.csv", map[string]string{"epoch_budget": "1e308"})
	notYAML := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(notYAML, []byte("this: is: not: yaml: [\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		args []string
		want string // the whole message, after "optimus: "
	}{
		{"remaining steps of 1e308", []string{"solve", "--cluster", p("cluster.csv"), "-i", huge},
			huge + `: column "remaining_steps_p50", row 1 (line 2): 1e+308 steps: more than a step counter holds (2^63)`},
		{"completion time overflows", []string{"solve", "--cluster", p("cluster.csv"), "-i", slow},
			slow + `: row 1: job "resnet50-a": its alloc_completion_s overflows (+Inf): its remaining steps, weight or speed model are out of range`},
		{"epoch budget of 1e308", []string{"predict", "-i", budget, "--models", p("models.csv")},
			budget + `: column "epoch_budget", row 1 (line 2): 1e+308 epochs of 5000 steps: more steps than a step counter holds (2^63)`},
		{"kubeconfig not YAML, snapshot", []string{"snapshot", "kubernetes", "--kubeconfig", notYAML},
			`kubernetes: error loading config file "` + notYAML + `": yaml: mapping values are not allowed in this context`},
		{"kubeconfig not YAML, apply", []string{"apply", "-i", p("plan.csv"), "--jobs", p("jobs.csv"), "--executor", "kubernetes", "--kubeconfig", notYAML},
			`kubernetes: error loading config file "` + notYAML + `": yaml: mapping values are not allowed in this context`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := p("out-" + strings.NewReplacer(" ", "-", ",", "").Replace(c.name) + ".csv")
			code, _, stderr := Run(nil, append(c.args, "-o", out)...)
			if code != 2 || stderr != "optimus: "+c.want+"\n" {
				t.Errorf("%v: exit %d, %q\nwant exit 2, %q", c.args, code, stderr, "optimus: "+c.want+"\n")
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("wrote %s", out)
			}
		})
	}
}

// splitCSVLine splits a line of the testbed's CSV tables, whose quoted
// cells (commands) may hold commas.
func splitCSVLine(line string) []string {
	var cells []string
	var cur strings.Builder
	quoted := false
	for _, r := range line {
		switch {
		case r == '"':
			quoted = !quoted
			cur.WriteRune(r)
		case r == ',' && !quoted:
			cells = append(cells, cur.String())
			cur.Reset()
		default:
			cur.WriteRune(r)
		}
	}
	return append(cells, cur.String())
}
