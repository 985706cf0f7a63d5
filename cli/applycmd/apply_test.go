package applycmd_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/optimus-sched/optimus/cli/clitest"
	"github.com/optimus-sched/optimus/cli/root"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
)

// optimus runs the whole command tree in-process.
var optimus = clitest.Command(root.NewCmd)

// demo is the pipeline over the embedded testbed, run once as
// scripts/demo.sh does into a folder holding testbed/ and plan.parquet
// (and the CSV copies of plan, jobs and cluster).
var demo = clitest.NewFixture("pipeline", func(dir string) error {
	tb := filepath.Join(dir, "testbed")
	return optimus.RunAll([][]string{
		{"datasets", "export", "testbed", "-o", tb},
		{"fit", "-i", tb + "/loss.parquet", "--speed", tb + "/speed.parquet", "--jobs", tb + "/jobs.parquet", "-o", dir + "/models.parquet"},
		{"predict", "-i", tb + "/jobs.parquet", "--models", dir + "/models.parquet", "-o", dir + "/predictions.parquet"},
		{"solve", "--cluster", tb + "/cluster.parquet", "-i", dir + "/predictions.parquet", "-o", dir + "/allocation.parquet"},
		{"place", "--cluster", tb + "/cluster.parquet", "-i", dir + "/allocation.parquet", "-o", dir + "/plan.parquet"},
		{"convert", "-i", dir + "/plan.parquet", "-o", dir + "/plan.csv"},
		{"convert", "-i", tb + "/jobs.parquet", "-o", dir + "/jobs.csv"},
		{"convert", "-i", tb + "/cluster.parquet", "-o", dir + "/cluster.csv"},
	})
})

// testbedPlan returns the folder of the pipeline; tests must not change it.
func testbedPlan(t *testing.T) string {
	t.Helper()
	return demo.Dir(t)
}

func TestMain(m *testing.M) { clitest.Main(m) }

// editCSV writes a copy of a CSV file with edit applied to each data line
// (return "" to drop the line).
func editCSV(t *testing.T, from, to string, edit func(line string) string) string {
	t.Helper()
	raw, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(raw), "\n"), "\n")
	out := []string{lines[0]}
	for _, l := range lines[1:] {
		if l = edit(l); l != "" {
			out = append(out, l)
		}
	}
	if err := os.WriteFile(to, []byte(strings.Join(out, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return to
}

// actions reads an actions table as one line per row.
func actions(t *testing.T, path string) []string {
	t.Helper()
	at, err := table.ReadFile(path, schema.Actions)
	if err != nil {
		t.Fatal(err)
	}
	job, action, role, node, outcome, msg := at.Strings("job"), at.Strings("action"), at.Strings("role"), at.Strings("node"), at.Strings("outcome"), at.Strings("message")
	idx, idxOK := at.Int64s("index"), at.Valid("index")
	out := make([]string, at.NumRows())
	for r := range out {
		task := "-"
		if idxOK[r] {
			task = fmt.Sprintf("%s %d %s", role[r], idx[r], node[r])
		}
		out[r] = fmt.Sprintf("%s %s [%s] %s: %s", job[r], action[r], task, outcome[r], msg[r])
	}
	return out
}

// count counts the lines containing every one of the parts.
func count(lines []string, parts ...string) int {
	n := 0
	for _, l := range lines {
		all := true
		for _, p := range parts {
			all = all && strings.Contains(l, p)
		}
		if all {
			n++
		}
	}
	return n
}

func TestPrintFreshApplyPlansEveryTask(t *testing.T) {
	dir := testbedPlan(t)
	out := filepath.Join(t.TempDir(), "actions.parquet")
	_, stderr := optimus.MustRun(t, nil, "apply", "-i", dir+"/plan.parquet", "--jobs", dir+"/testbed/jobs.parquet", "--executor", "print",
		"--cluster", dir+"/testbed/cluster.parquet", "-o", out, "-v")
	got := actions(t, out)
	if len(got) != 60 || count(got, " start [", "planned: start on ") != 60 {
		t.Errorf("fresh apply: %d rows, %d planned starts; want 60 of 60:\n%s", len(got), count(got, "planned: start on"), strings.Join(got, "\n"))
	}
	if got[0] != "dssm-a start [ps 0 gpu-02] planned: start on gpu-02" {
		t.Errorf("first row %q: rows are sorted by job, ps first", got[0])
	}
	if !strings.Contains(stderr, "): 9 jobs: 9 start, 0 stop, 0 resize, 0 move, 0 unchanged; changes: 0 done, 9 planned, 0 failed") {
		t.Errorf("summary: %s", stderr)
	}
	t.Logf("first rows:\n%s\nsummary: %s", strings.Join(got[:4], "\n"), stderr)
}

// Applying the plan that runs now gives only skipped actions.
func TestPrintIsIdempotent(t *testing.T) {
	dir := testbedPlan(t)
	out := filepath.Join(t.TempDir(), "actions.csv")
	optimus.MustRun(t, nil, "apply", "-i", dir+"/plan.parquet", "--jobs", dir+"/testbed/jobs.parquet", "--executor", "print", "--current", dir+"/plan.parquet", "-o", out)
	got := actions(t, out)
	if len(got) != 9 || count(got, " start [-] skipped: already running as planned: ") != 9 {
		t.Errorf("re-apply: want 9 skipped jobs, got\n%s", strings.Join(got, "\n"))
	}
	t.Logf("%s", strings.Join(got, "\n"))
}

// A plan with one worker fewer for dssm-a (resize), one seq2seq-a worker
// elsewhere (move) and vgg16-b gone (stop with --prune only).
func TestPrintResizeMovePrune(t *testing.T) {
	dir := testbedPlan(t)
	tmp := t.TempDir()
	changed := editCSV(t, dir+"/plan.csv", tmp+"/plan.csv", func(l string) string {
		switch {
		case strings.HasPrefix(l, "dssm-a,worker,2,"), strings.HasPrefix(l, "vgg16-b,"):
			return ""
		case strings.HasPrefix(l, "seq2seq-a,worker,1,gpu-03,"):
			return strings.Replace(l, "gpu-03", "gpu-04", 1)
		}
		return l
	})
	for _, prune := range []bool{false, true} {
		out := filepath.Join(tmp, fmt.Sprintf("actions-%v.csv", prune))
		args := []string{"apply", "-i", changed, "--jobs", dir + "/jobs.csv", "--executor", "print", "--current", dir + "/plan.parquet", "-o", out}
		if prune {
			args = append(args, "--prune")
		}
		optimus.MustRun(t, nil, args...)
		got := actions(t, out)
		var changes []string
		for _, l := range got {
			if !strings.Contains(l, "] skipped: already running as planned") {
				changes = append(changes, l)
			}
		}
		want := []string{
			"dssm-a resize [ps 0 gpu-02] planned: restart on gpu-02",
			"dssm-a resize [worker 0 gpu-02] planned: restart on gpu-02",
			"dssm-a resize [worker 1 gpu-02] planned: restart on gpu-02",
			"dssm-a resize [worker 2 gpu-04] planned: stop on gpu-04",
			"seq2seq-a move [ps 0 gpu-03] planned: restart on gpu-03",
			"seq2seq-a move [ps 1 gpu-03] planned: restart on gpu-03",
			"seq2seq-a move [worker 0 gpu-03] planned: restart on gpu-03",
			"seq2seq-a move [worker 1 gpu-04] planned: move from gpu-03 to gpu-04",
			"vgg16-b stop [-] skipped: not in the plan: left running (6 ps + 1 worker on cpu-01, cpu-03, cpu-04, cpu-06, cpu-07, gpu-04, gpu-06); --prune stops it",
		}
		if prune {
			want = want[:8]
			for _, l := range got {
				if strings.HasPrefix(l, "vgg16-b stop [") && strings.Contains(l, "] planned: stop on ") {
					want = append(want, l)
				}
			}
			if len(want) != 15 {
				t.Errorf("--prune: %d vgg16-b stop rows, want 7 (its tasks)", len(want)-8)
			}
		}
		if !reflect.DeepEqual(changes, want) {
			t.Errorf("prune %v:\n got %s\nwant %s", prune, strings.Join(changes, "\n     "), strings.Join(want, "\n     "))
		}
		if n := count(got, "skipped: already running as planned"); n != 6 {
			t.Errorf("prune %v: %d unchanged jobs, want 6", prune, n)
		}
		t.Logf("prune %v:\n%s", prune, strings.Join(changes, "\n"))
	}
}

// launcher writes a bash script that records each call's arguments and
// standard input into dir/<job>.args and dir/<job>.json, and fails for the
// job named in $FAIL_JOB.
func launcher(t *testing.T, record string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "launch")
	body := `#!/usr/bin/env bash
set -eu
printf '%s\n' "$@" > "` + record + `/$2.args"
cat > "` + record + `/$2.json"
if [ "$2" = "${FAIL_JOB:-}" ]; then echo "no room for $2" >&2; exit 4; fi
echo "$1 $2: submitted" >&2
`
	if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestExecRunsTheProgramPerChange(t *testing.T) {
	dir := testbedPlan(t)
	record := t.TempDir()
	prog := launcher(t, record)
	out := filepath.Join(t.TempDir(), "actions.parquet")
	optimus.MustRun(t, nil, "apply", "-i", dir+"/plan.parquet", "--jobs", dir+"/testbed/jobs.parquet", "--executor", "exec", "--program", prog, "-o", out)
	got := actions(t, out)
	if len(got) != 9 || count(got, " start [-] done: start ", ": submitted") != 9 {
		t.Errorf("exec fresh apply:\n%s", strings.Join(got, "\n"))
	}
	args, err := os.ReadFile(record + "/dssm-a.args")
	if err != nil {
		t.Fatal(err)
	}
	if fields := strings.Fields(string(args)); len(fields) != 8 || strings.Join(fields[:2], " ") != "start dssm-a" || fields[2] != "--generation" ||
		strings.Join(fields[4:], " ") != "--ps 1 --workers 3" {
		t.Errorf("dssm-a's arguments: %q", args)
	}
	var req struct {
		Action string
		Job    struct {
			Job, Image string
			Argv       []string
		}
		To []struct {
			Name, Node string
			Resources  map[string]float64
		}
	}
	raw, _ := os.ReadFile(record + "/dssm-a.json")
	if err := json.Unmarshal(raw, &req); err != nil {
		t.Fatal(err)
	}
	if req.Action != "start" || len(req.To) != 4 || req.To[0].Name != "dssm-a-ps-0" || req.To[0].Node != "gpu-02" || req.To[3].Resources["gpu"] != 1 ||
		strings.Join(req.Job.Argv, " ") != "python train_dssm.py --kv-store dist_sync" {
		t.Errorf("dssm-a's request: %s", raw)
	}
	t.Logf("dssm-a: args %q\nstdin %s", args, raw)

	// The same plan as current: the program is not called at all.
	os.RemoveAll(record)
	os.Mkdir(record, 0o755)
	optimus.MustRun(t, nil, "apply", "-i", dir+"/plan.parquet", "--jobs", dir+"/testbed/jobs.parquet", "--executor", "exec", "--program", prog, "--current", dir+"/plan.parquet", "-o", out)
	if calls, _ := os.ReadDir(record); len(calls) != 0 || count(actions(t, out), "skipped") != 9 {
		t.Errorf("re-apply called the program %d times; actions:\n%s", len(calls)/2, strings.Join(actions(t, out), "\n"))
	}
}

// One failing call: the other jobs go on, the table says which failed, and
// the exit status is 1.
func TestExecPartialFailure(t *testing.T) {
	dir := testbedPlan(t)
	record := t.TempDir()
	prog := launcher(t, record)
	t.Setenv("FAIL_JOB", "resnet50-b")
	out := filepath.Join(t.TempDir(), "actions.parquet")
	code, _, stderr := optimus.Run(t, nil, "apply", "-i", dir+"/plan.parquet", "--jobs", dir+"/testbed/jobs.parquet", "--executor", "exec", "--program", prog, "-o", out)
	if code != 1 || !strings.Contains(stderr, "1 of 9 changes failed") {
		t.Errorf("exit %d, stderr %s; want 1 and the count of failures", code, stderr)
	}
	got := actions(t, out)
	if count(got, " done: ") != 8 || count(got, "resnet50-b start [-] failed: exit status 4: no room for resnet50-b") != 1 {
		t.Errorf("actions:\n%s", strings.Join(got, "\n"))
	}
	calls, _ := os.ReadDir(record)
	if len(calls) != 18 {
		t.Errorf("%d files recorded, want 2 per job (9 jobs)", len(calls))
	}
	t.Logf("stderr: %s", stderr)
}

func TestExecDryRunCallsNothing(t *testing.T) {
	dir := testbedPlan(t)
	record := t.TempDir()
	prog := launcher(t, record)
	out := filepath.Join(t.TempDir(), "actions.csv")
	optimus.MustRun(t, nil, "apply", "-i", dir+"/plan.parquet", "--jobs", dir+"/testbed/jobs.parquet", "--executor", "exec", "--program", prog, "--dry-run", "-o", out, "--generation", "cron-42")
	got := actions(t, out)
	if calls, _ := os.ReadDir(record); len(calls) != 0 {
		t.Errorf("dry run called the program %d times", len(calls)/2)
	}
	if want := "dssm-a start [-] planned: would run " + prog + " start dssm-a --generation cron-42 --ps 1 --workers 3"; got[0] != want {
		t.Errorf("first row %q, want %q", got[0], want)
	}
}

// The plan on standard input, as at the end of the cron pipe.
func TestPlanFromAPipe(t *testing.T) {
	dir := testbedPlan(t)
	stream, _ := optimus.MustRun(t, nil, "convert", "-i", dir+"/plan.parquet", "--format", "arrows")
	code, out, stderr := optimus.Run(t, stream, "apply", "--jobs", dir+"/testbed/jobs.parquet", "--executor", "print", "--format", "csv")
	if code != 0 || strings.Count(string(out), "\n") != 61 || !strings.HasPrefix(string(out), "job,action,role,index,node,outcome,message\n") {
		t.Errorf("exit %d, %d lines: %s%s", code, strings.Count(string(out), "\n"), out, stderr)
	}
}

// Bad input: exit 2, a message naming the problem, and no output file.
func TestBadInputExitsTwoAndWritesNothing(t *testing.T) {
	dir := testbedPlan(t)
	tmp := t.TempDir()
	noVgg := editCSV(t, dir+"/jobs.csv", tmp+"/jobs-no-vgg16-b.csv", func(l string) string {
		if strings.HasPrefix(l, "vgg16-b,") {
			return ""
		}
		return l
	})
	header := strings.Split(mustRead(t, dir+"/jobs.csv"), "\n")[0]
	imageCol := indexOf(strings.Split(header, ","), "image")
	noImage := editCSV(t, dir+"/jobs.csv", tmp+"/jobs-no-image.csv", func(l string) string {
		if !strings.HasPrefix(l, "seq2seq-a,") {
			return l
		}
		f := strings.Split(l, ",")
		f[imageCol] = ""
		return strings.Join(f, ",")
	})
	small := editCSV(t, dir+"/cluster.csv", tmp+"/cluster-small.csv", func(l string) string {
		if strings.HasPrefix(l, "gpu-03,") {
			return "gpu-03,1.0,16.0,64.0,10.0"
		}
		return l
	})
	noNode := editCSV(t, dir+"/cluster.csv", tmp+"/cluster-no-cpu-07.csv", func(l string) string {
		if strings.HasPrefix(l, "cpu-07,") {
			return ""
		}
		return l
	})
	rename := func(l string) string {
		if strings.HasPrefix(l, "seq2seq-a,") {
			return "Seq2Seq_A," + strings.TrimPrefix(l, "seq2seq-a,")
		}
		return l
	}
	badNamePlan := editCSV(t, dir+"/plan.csv", tmp+"/plan-bad-name.csv", rename)
	badNameJobs := editCSV(t, dir+"/jobs.csv", tmp+"/jobs-bad-name.csv", rename)
	plan, jobs := dir+"/plan.parquet", dir+"/testbed/jobs.parquet"
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"plan names an unknown job", []string{"--jobs", noVgg, "--executor", "print"},
			`plan.parquet: column "job", row 39: job "vgg16-b" is not in the jobs table ` + noVgg},
		{"job without image, print --manifests", []string{"--jobs", noImage, "--executor", "print", "--manifests"},
			`plan.parquet: job "seq2seq-a" has no image: the jobs table's image column is empty`},
		{"job name Kubernetes rejects, print --manifests", []string{"-i", badNamePlan, "--jobs", badNameJobs, "--executor", "print", "--manifests"},
			`plan-bad-name.csv: job "Seq2Seq_A" cannot name a Kubernetes Service`},
		{"node over capacity", []string{"--jobs", jobs, "--executor", "print", "--cluster", small},
			`plan.parquet: node "gpu-03": the plan's tasks use 3 gpu, the node has 1`},
		{"node over capacity, exec", []string{"--jobs", jobs, "--executor", "exec", "--program", "/bin/true", "--cluster", small},
			`node "gpu-03": the plan's tasks use 3 gpu, the node has 1`},
		{"node not in the cluster", []string{"--jobs", jobs, "--executor", "print", "--cluster", noNode},
			`node "cpu-07" is not in the cluster`},
		{"missing program", []string{"--jobs", jobs, "--executor", "exec", "--program", tmp + "/no-such-launcher"},
			"--program " + tmp + "/no-such-launcher: stat " + tmp + "/no-such-launcher: no such file or directory"},
		{"no executor", []string{"--jobs", jobs}, "--executor is required: print (changes nothing), exec (runs --program per job change), kubernetes (pods on a Kubernetes cluster) or pytorchjob (Kubeflow PyTorchJobs on a Kubernetes cluster)"},
		{"namespace with print, no manifests", []string{"--jobs", jobs, "--executor", "print", "--namespace", "x"}, "--namespace applies to --executor kubernetes, pytorchjob or print --manifests"},
		{"namespace with exec", []string{"--jobs", jobs, "--executor", "exec", "--program", "/bin/true", "--namespace", "x"}, "--namespace applies to --executor kubernetes, pytorchjob or print --manifests"},
		{"timeout with exec", []string{"--jobs", jobs, "--executor", "exec", "--program", "/bin/true", "--timeout", "5s"}, "--timeout applies to --executor kubernetes or pytorchjob"},
		{"kubeconfig with print", []string{"--jobs", jobs, "--executor", "print", "--kubeconfig", "k"}, "--kubeconfig applies to --executor kubernetes or pytorchjob"},
		{"exec timeout not positive", []string{"--jobs", jobs, "--executor", "exec", "--program", "/bin/true", "--exec-timeout", "0s"}, "--exec-timeout 0s: give a positive duration"},
		{"unknown executor", []string{"--jobs", jobs, "--executor", "slurm"}, `--executor "slurm": use print, exec, kubernetes or pytorchjob`},
		{"exec without program", []string{"--jobs", jobs, "--executor", "exec"}, "--executor exec needs --program PATH"},
		{"program with print", []string{"--jobs", jobs, "--executor", "print", "--program", "/bin/true"}, "--program applies to --executor exec only"},
		{"manifests with exec", []string{"--jobs", jobs, "--executor", "exec", "--program", "/bin/true", "--manifests"}, "--manifests applies to --executor print only"},
		{"state wait without a state", []string{"--jobs", jobs, "--executor", "exec", "--program", "/bin/true", "--state-wait", "1m"}, "--state-wait applies with --state only"},
		{"current with kubernetes", []string{"--jobs", jobs, "--executor", "kubernetes", "--current", plan}, "--current, --state and --cluster apply to print and exec"},
		{"no jobs", []string{"--executor", "print"}, "--jobs FILE is required"},
		{"jobs is not a jobs table", []string{"--jobs", dir + "/cluster.csv", "--executor", "print"}, "cluster.csv"},
	}
	for _, tt := range tests {
		out := filepath.Join(tmp, "actions.parquet")
		args := append([]string{"apply", "-o", out}, tt.args...)
		if !strings.Contains(strings.Join(tt.args, " "), "-i ") {
			args = append(args, "-i", plan)
		}
		code, stdout, stderr := optimus.Run(t, nil, args...)
		if code != 2 || !strings.Contains(stderr, tt.want) {
			t.Errorf("%s: exit %d, stderr %q; want 2 and %q", tt.name, code, stderr, tt.want)
		}
		if _, err := os.Stat(out); err == nil || len(stdout) != 0 {
			t.Errorf("%s: wrote output", tt.name)
		}
		t.Logf("%s: exit %d: %s", tt.name, code, strings.TrimSpace(stderr))
	}
}

func mustRead(t *testing.T, path string) string {
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

func indexOf(list []string, s string) int {
	for j, v := range list {
		if v == s {
			return j
		}
	}
	return -1
}

// print --manifests: the YAML of the objects the kubernetes executor would
// create goes to standard output, the actions table to -o.
func TestPrintManifests(t *testing.T) {
	dir := testbedPlan(t)
	out := filepath.Join(t.TempDir(), "actions.csv")
	yaml, _ := optimus.MustRun(t, nil, "apply", "-i", dir+"/plan.parquet", "--jobs", dir+"/testbed/jobs.parquet", "--executor", "print", "--manifests", "--namespace", "training", "-o", out)
	text := string(yaml)
	if !strings.HasPrefix(text, "apiVersion: v1\n") || strings.Count(text, "\nkind: Service\n") != 9 || strings.Count(text, "\n  namespace: training\n") < 69 {
		t.Errorf("manifests: %d Services, %d objects in namespace training; want 9 and one per pod and Service", strings.Count(text, "\nkind: Service\n"), strings.Count(text, "\n  namespace: training\n"))
	}
	pt, err := table.ReadFile(dir+"/plan.parquet", schema.Plan)
	if err != nil {
		t.Fatal(err)
	}
	jobs, roles, idx := pt.Strings("job"), pt.Strings("role"), pt.Int64s("index")
	for r := range jobs {
		name := fmt.Sprintf("%s-%s-%d", jobs[r], roles[r], idx[r])
		if !strings.Contains(text, "\n  name: "+name+"\n") {
			t.Errorf("no pod %s in the manifests", name)
		}
	}
	if got := actions(t, out); len(got) != 60 {
		t.Errorf("actions table: %d rows, want 60", len(got))
	}
	// Without -o, standard output carries only the YAML.
	yaml2, _ := optimus.MustRun(t, nil, "apply", "-i", dir+"/plan.parquet", "--jobs", dir+"/testbed/jobs.parquet", "--executor", "print", "--manifests", "--namespace", "training")
	if string(yaml2) != text {
		t.Error("without -o the output differs from the YAML alone")
	}
	t.Logf("%d bytes of YAML, %d pods", len(text), strings.Count(text, "\nkind: Pod\n")+strings.Count(text[:20], "kind: Pod"))
}

// The next round of the pipeline with nothing changed: place --current keeps
// every task where it runs (kept), and apply then has nothing to do.
func TestNextRoundKeepsEverything(t *testing.T) {
	dir := testbedPlan(t)
	tmp := t.TempDir()
	optimus.MustRun(t, nil, "place", "--cluster", dir+"/testbed/cluster.parquet", "-i", dir+"/allocation.parquet", "--current", dir+"/plan.parquet", "-o", tmp+"/plan2.parquet")
	pt, err := table.ReadFile(tmp+"/plan2.parquet", schema.Plan)
	if err != nil {
		t.Fatal(err)
	}
	kept := 0
	for _, k := range pt.Bools("kept") {
		if k {
			kept++
		}
	}
	optimus.MustRun(t, nil, "apply", "-i", tmp+"/plan2.parquet", "--jobs", dir+"/testbed/jobs.parquet", "--executor", "print", "--current", dir+"/plan.parquet", "-o", tmp+"/actions.csv")
	got := actions(t, tmp+"/actions.csv")
	if kept != 60 || len(got) != 9 || count(got, "skipped: already running as planned") != 9 {
		t.Errorf("%d of 60 tasks kept; actions:\n%s", kept, strings.Join(got, "\n"))
	}
}

// The plan lets a running job wait: it is stopped, without --prune.
func TestWaitingJobIsStopped(t *testing.T) {
	dir := testbedPlan(t)
	tmp := t.TempDir()
	first := true
	plan := editCSV(t, dir+"/plan.csv", tmp+"/plan.csv", func(l string) string {
		if !strings.HasPrefix(l, "vgg16-b,") {
			return l
		}
		if first {
			first = false
			return "vgg16-b,,,,false,waiting,cluster full,0,0,0,,false,,0.0,0.0,0.0,0.0"
		}
		return ""
	})
	optimus.MustRun(t, nil, "apply", "-i", plan, "--jobs", dir+"/jobs.csv", "--executor", "print", "--current", dir+"/plan.parquet", "-o", tmp+"/actions.csv")
	got := actions(t, tmp+"/actions.csv")
	if count(got, "vgg16-b stop [", "] planned: stop on ") != 7 || count(got, "skipped: already running as planned") != 8 {
		t.Errorf("actions:\n%s", strings.Join(got, "\n"))
	}
}
