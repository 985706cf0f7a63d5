package placecmd_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/optimus-sched/optimus/cli/clitest"
	"github.com/optimus-sched/optimus/cli/datasetscmd"
	"github.com/optimus-sched/optimus/cli/iostreams"
	"github.com/optimus-sched/optimus/cli/placecmd"
	"github.com/optimus-sched/optimus/cli/solvecmd"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
)

// optimus runs, in-process, the commands the tests pipe generated workloads
// through (clitest.Tree: not every command, so
// that the test binary links no client-go).
var optimus = clitest.Tree(
	datasetscmd.NewCmd,
	func(ios *iostreams.IOStreams) *cobra.Command { return solvecmd.NewCmd(ios, nil) },
	func(ios *iostreams.IOStreams) *cobra.Command { return placecmd.NewCmd(ios, nil) })

// checkPlan verifies a plan against the cluster: every node within its
// capacity on every resource, and the task rows consistent with the
// per-job columns.
func checkPlan(t *testing.T, plan, cluster *table.Table) {
	t.Helper()
	var resources []string
	for _, c := range cluster.ColumnNames() {
		if c != "node" {
			resources = append(resources, c)
		}
	}
	nodeRow := map[string]int{}
	for i, n := range cluster.Strings("node") {
		nodeRow[n] = i
	}
	used := map[string][]float64{}
	nodes, nodeOK := plan.Strings("node"), plan.Valid("node")
	jobs, status, roles := plan.Strings("job"), plan.Strings("status"), plan.Strings("role")
	perJob := map[string][2]int64{}
	for i, ok := range nodeOK {
		if ok && used[nodes[i]] == nil {
			used[nodes[i]] = make([]float64, len(resources))
		}
	}
	for k, r := range resources {
		vals := plan.Float64s(r)
		for i := range vals {
			if nodeOK[i] {
				used[nodes[i]][k] += vals[i]
			}
		}
	}
	for node, u := range used {
		row, ok := nodeRow[node]
		if !ok {
			t.Errorf("plan uses node %q, not in the cluster", node)
			continue
		}
		for k, r := range resources {
			if c := cluster.Float64s(r)[row]; u[k] > c*(1+1e-9) {
				t.Errorf("node %s: %s %v used of %v", node, r, u[k], c)
			}
		}
	}
	for i := range jobs {
		if !nodeOK[i] {
			if status[i] == "running" {
				t.Errorf("row %d: running job %s without a node", i+1, jobs[i])
			}
			continue
		}
		c := perJob[jobs[i]]
		if roles[i] == "ps" {
			c[0]++
		} else {
			c[1]++
		}
		perJob[jobs[i]] = c
	}
	jps, jw := plan.Int64s("job_ps"), plan.Int64s("job_workers")
	for i, j := range jobs {
		if nodeOK[i] && (perJob[j][0] != jps[i] || perJob[j][1] != jw[i]) {
			t.Errorf("row %d: job %s says %d PS + %d workers, rows hold %v", i+1, j, jps[i], jw[i], perJob[j])
		}
	}
}

// generate | solve | place, through in-process pipes carrying Arrow
// streams, as a shell would run it; then the same with the built-in
// policies of both steps, each plan within every node's capacity.
func TestPipeGenerateSolvePlace(t *testing.T) {
	dir := t.TempDir()
	c := filepath.Join(dir, "c.parquet")
	pred, _ := optimus.MustRun(t, nil, "datasets", "generate", "--tasks", "3000", "--nodes", "300", "--cluster", c, "--seed", "3", "--running", "0")
	if !bytes.HasPrefix(pred, []byte{0xff, 0xff, 0xff, 0xff}) {
		t.Fatal("generate's output is not an Arrow stream")
	}
	cluster, err := table.ReadFile(c, schema.Cluster)
	if err != nil {
		t.Fatal(err)
	}
	for _, solvePolicy := range []string{"optimus", "drf", "tetris", "fifo"} {
		alloc, _ := optimus.MustRun(t, pred, "solve", "--cluster", c, "--policy", solvePolicy)
		for _, placePolicy := range []string{"optimus", "spread", "pack"} {
			out := filepath.Join(dir, solvePolicy+"-"+placePolicy+".parquet")
			_, summary := optimus.MustRun(t, alloc, "place", "--cluster", c, "--policy", placePolicy, "-o", out, "-v")
			plan, err := table.ReadFile(out, schema.Plan)
			if err != nil {
				t.Fatal(err)
			}
			checkPlan(t, plan, cluster)
			// The summary counts the nodes the plan uses.
			used := map[string]bool{}
			for i, node := range plan.Strings("node") {
				if plan.Valid("node")[i] {
					used[node] = true
				}
			}
			if want := fmt.Sprintf(" tasks on %d of %d nodes ", len(used), cluster.NumRows()); !strings.Contains(summary, want) {
				t.Errorf("%s | %s: summary %q does not say %q", solvePolicy, placePolicy, summary, want)
			}
		}
	}
	// With room for everyone, optimus places every task the allocation has,
	// each job by the even split, and generate sized the workload exactly.
	plan, err := table.ReadFile(filepath.Join(dir, "optimus-optimus.parquet"), schema.Plan)
	if err != nil {
		t.Fatal(err)
	}
	tasks, even := 0, 0
	method, nodeOK := plan.Strings("job_method"), plan.Valid("node")
	for i := range method {
		if nodeOK[i] {
			tasks++
			if method[i] == "even" {
				even++
			}
		}
	}
	t.Logf("optimus | optimus: %d tasks placed, %d of them by the even split", tasks, even)
	if tasks != 3000 {
		t.Errorf("%d tasks placed, want the 3000 generated", tasks)
	}
	// Identical input, byte-identical plan, on a file and on a pipe.
	alloc, _ := optimus.MustRun(t, pred, "solve", "--cluster", c)
	for _, policy := range []string{"optimus", "spread", "pack"} {
		var files, streams [2][]byte
		for k := range files {
			out := filepath.Join(dir, "again.parquet")
			optimus.MustRun(t, alloc, "place", "--cluster", c, "--policy", policy, "-o", out)
			var err error
			if files[k], err = os.ReadFile(out); err != nil {
				t.Fatal(err)
			}
			streams[k], _ = optimus.MustRun(t, alloc, "place", "--cluster", c, "--policy", policy)
		}
		if !bytes.Equal(files[0], files[1]) || !bytes.Equal(streams[0], streams[1]) {
			t.Errorf("%s: two placements of the same allocation differ", policy)
		}
	}
}

// Tasks of jobs whose allocation did not change stay on their nodes when
// the previous plan is given with --current.
func TestCurrentPlanKeepsTasks(t *testing.T) {
	dir := t.TempDir()
	c := filepath.Join(dir, "c.parquet")
	pred, _ := optimus.MustRun(t, nil, "datasets", "generate", "--tasks", "400", "--nodes", "60", "--cluster", c, "--running", "0")
	alloc, _ := optimus.MustRun(t, pred, "solve", "--cluster", c)
	first := filepath.Join(dir, "first.parquet")
	optimus.MustRun(t, alloc, "place", "--cluster", c, "-o", first)
	// Place the same allocation again with the first plan running, but with
	// the cluster's nodes listed in the reverse order: from scratch the plan
	// would differ, so every kept task shows.
	cluster, err := table.ReadFile(c, schema.Cluster)
	if err != nil {
		t.Fatal(err)
	}
	rev := make([]int, cluster.NumRows())
	for i := range rev {
		rev[i] = len(rev) - 1 - i
	}
	reversed := filepath.Join(dir, "reversed.parquet")
	if err := table.WriteFile(reversed, cluster.Take(rev)); err != nil {
		t.Fatal(err)
	}
	second := filepath.Join(dir, "second.parquet")
	optimus.MustRun(t, alloc, "place", "--cluster", reversed, "--current", first, "-o", second)
	a, _ := table.ReadFile(first, schema.Plan)
	b, err := table.ReadFile(second, schema.Plan)
	if err != nil {
		t.Fatal(err)
	}
	if d := table.Diff(withoutKept(t, a), withoutKept(t, b)); d != "" {
		t.Errorf("the second plan moved tasks: %s", d)
	}
	for i, k := range b.Bools("kept") {
		if b.Valid("node")[i] && !k {
			t.Errorf("row %d: task not marked kept", i+1)
		}
	}
	scratch := filepath.Join(dir, "scratch.parquet")
	optimus.MustRun(t, alloc, "place", "--cluster", reversed, "-o", scratch)
	s, _ := table.ReadFile(scratch, schema.Plan)
	if table.Diff(withoutKept(t, a), withoutKept(t, s)) == "" {
		t.Error("from scratch on the reversed cluster the plan is the same: the test shows nothing")
	}

	// A task listed twice in the current plan is an error naming its row.
	dup := a.Take(append([]int{0}, rowsOf(a.NumRows())...))
	dupPath := filepath.Join(dir, "dup.parquet")
	if err := table.WriteFile(dupPath, dup); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := optimus.Run(t, alloc, "place", "--cluster", c, "--current", dupPath)
	if code != 2 || !strings.Contains(stderr, `dup.parquet: column "index", row 2: task job-`) {
		t.Errorf("duplicate task: exit %d: %s", code, stderr)
	}
}

func rowsOf(n int) []int {
	r := make([]int, n)
	for i := range r {
		r[i] = i
	}
	return r
}

func withoutKept(t *testing.T, p *table.Table) *table.Table {
	t.Helper()
	q := p.Take(rowsOf(p.NumRows()))
	q.Drop("kept", "reason", "job_method")
	return q
}

func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	c := filepath.Join(dir, "c.parquet")
	pred, _ := optimus.MustRun(t, nil, "datasets", "generate", "--tasks", "100", "--nodes", "20", "--cluster", c)
	alloc, _ := optimus.MustRun(t, pred, "solve", "--cluster", c)
	for _, tc := range []struct {
		name  string
		stdin []byte
		args  []string
		want  string
	}{
		{"no cluster", alloc, []string{"place"}, "--cluster FILE is required"},
		{"cluster from stdin", alloc, []string{"place", "--cluster", "-"}, "--cluster: give a file"},
		{"predictions instead of an allocation", pred, []string{"place", "--cluster", c}, "is a predictions table, but an allocation table is expected here"},
		{"unknown policy", alloc, []string{"place", "--cluster", c, "--policy", "random"}, `no placement policy "random"`},
		{"missing current plan", alloc, []string{"place", "--cluster", c, "--current", filepath.Join(dir, "none.parquet")}, "none.parquet: no such file"},
		{"ps-blocks without --ps", nil, []string{"place", "ps-blocks", "--model", "vgg-16"}, "--ps N is required"},
		{"ps-blocks unknown model", nil, []string{"place", "ps-blocks", "--model", "gpt", "--ps", "2"}, `no parameter blocks for model "gpt"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := optimus.Run(t, tc.stdin, tc.args...)
			if code != 2 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit 2 and one line containing %q", code, stderr, tc.want)
			}
		})
	}
}

// A job whose allocation cannot be placed waits and the others are placed.
func TestJobThatDoesNotFitWaitsOthersPlaced(t *testing.T) {
	dir := t.TempDir()
	csv := "node,gpu,cpu\nn1,4,16\nn2,4,16\n"
	c := filepath.Join(dir, "c.csv")
	if err := os.WriteFile(c, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	allocCSV := "job,model,mode,global_batch,epoch_steps,alloc_ps,alloc_workers,status,reason,worker_gpu,worker_cpu,ps_gpu,ps_cpu\n" +
		"big,m,sync,32,100,1,1,running,,1,2,0,20\n" +
		"ok,m,sync,32,100,2,4,running,,1,2,0,4\n" +
		"queued,m,sync,32,100,0,0,waiting,cluster full,1,2,0,4\n"
	a := filepath.Join(dir, "a.csv")
	if err := os.WriteFile(a, []byte(allocCSV), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _ := optimus.MustRun(t, nil, "place", "--cluster", c, "-i", a, "--format", "csv")
	got := string(out)
	for _, want := range []string{
		"big,,,,false,waiting,\"no room for at least 1 PS and 1 worker (placed 0 PS, 1 workers, then removed them)\",0,0,0,,false,,0.0,0.0\n",
		"ok,ps,0,n1,false,running,,2,4,1,even,true,0.0,0.0,4.0\n",
		"ok,worker,3,n1,false,running,,2,4,1,even,true,0.0,1.0,2.0\n",
		"queued,,,,false,waiting,cluster full,0,0,0,,false,,0.0,0.0\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("plan lacks %q:\n%s", want, got)
		}
	}
}

func TestPSBlocksCompare(t *testing.T) {
	out, _ := optimus.MustRun(t, nil, "place", "ps-blocks", "--model", "resnet-50", "--ps", "4", "--compare", "--format", "csv")
	got := string(out)
	want := "policy,servers,blocks,pieces,max_bytes,min_bytes,bytes_imbalance,max_requests,min_requests,requests_imbalance\n"
	if !strings.HasPrefix(got, want) || !strings.Contains(got, "\noptimus,4,161,161,") || !strings.Contains(got, "\nhash,4,161,191,") {
		t.Errorf("compare output:\n%s", got)
	}
	// An input table works as the built-in list does.
	dir := t.TempDir()
	blocks := filepath.Join(dir, "blocks.csv")
	if err := os.WriteFile(blocks, []byte("block,bytes\nfc_weight,10000000\nfc_bias,4000\nconv_weight,3000000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _ = optimus.MustRun(t, nil, "place", "ps-blocks", "-i", blocks, "--ps", "2", "--format", "csv")
	want = "block,piece,pieces,offset_bytes,bytes,ps,policy\n" +
		"fc_weight,0,2,0,6500000,0,optimus\nfc_weight,1,2,6500000,3500000,1,optimus\n" +
		"fc_bias,0,1,0,4000,0,optimus\nconv_weight,0,1,0,3000000,1,optimus\n"
	if string(out) != want {
		t.Errorf("assignment:\n%s\nwant:\n%s", out, want)
	}
	code, _, stderr := optimus.Run(t, nil, "place", "ps-blocks", "-i", blocks, "--model", "vgg-16", "--ps", "2")
	if code != 2 || !strings.Contains(stderr, "either -i or --model") {
		t.Errorf("-i and --model: exit %d: %s", code, stderr)
	}
}

// The optimus policy falls back to where solve fitted the tasks
// (alloc_nodes) when its own placement leaves a job short: here smallest
// first puts small's PS next to its worker on the GPU server, where big's
// worker then has no cores left. A malformed alloc_nodes is an error
// naming its row; one naming a node the cluster lacks is ignored.
func TestAllocNodesRescuesAJob(t *testing.T) {
	dir := t.TempDir()
	c := filepath.Join(dir, "c.csv")
	if err := os.WriteFile(c, []byte("node,gpu,cpu\ng1,2,8\nc1,0,8\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	alloc := func(smallNodes, bigNodes string) string {
		q := func(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
		path := filepath.Join(dir, "a.csv")
		csv := "job,model,mode,global_batch,epoch_steps,alloc_ps,alloc_workers,status,reason,worker_gpu,worker_cpu,ps_gpu,ps_cpu,alloc_nodes\n" +
			"small,m,sync,32,100,1,1,running,,1,2,0,4," + q(smallNodes) + "\n" +
			"big,m,sync,32,100,2,1,running,,1,4,0,2," + q(bigNodes) + "\n"
		if err := os.WriteFile(path, []byte(csv), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	small := `[{"node":"g1","ps":0,"workers":1},{"node":"c1","ps":1,"workers":0}]`
	big := `[{"node":"g1","ps":0,"workers":1},{"node":"c1","ps":2,"workers":0}]`
	methods := func(a string) map[string]string {
		out := filepath.Join(dir, "plan.parquet")
		optimus.MustRun(t, nil, "place", "--cluster", c, "-i", a, "-o", out)
		plan, err := table.ReadFile(out, schema.Plan)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		jobs, status, method := plan.Strings("job"), plan.Strings("status"), plan.Strings("job_method")
		jps, jw := plan.Int64s("job_ps"), plan.Int64s("job_workers")
		for i, j := range jobs {
			got[j] = fmt.Sprintf("%s %s %d+%d", status[i], method[i], jps[i], jw[i])
		}
		return got
	}
	without := methods(alloc("", ""))
	if without["small"] == "running even 1+1" && without["big"] == "running even 2+1" {
		t.Fatalf("the case needs no help: %v", without)
	}
	// small, which failed, goes where solve fitted it; big then has room
	// for its even split.
	if got := methods(alloc(small, big)); got["small"] != "running solve 1+1" || got["big"] != "running even 2+1" {
		t.Errorf("with alloc_nodes: %v; without: %v", got, without)
	}
	if got := methods(alloc(small, strings.ReplaceAll(big, "c1", "c9"))); strings.Contains(got["big"], "solve") {
		t.Errorf("big's layout names a node the cluster lacks, yet: %v", got)
	}
	code, _, stderr := optimus.Run(t, nil, "place", "--cluster", c, "-i", alloc(small, `[{"node":"g1"`))
	if want := `a.csv: column "alloc_nodes", row 2: not a JSON array`; code != 2 || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, %q; want 2 and %q", code, stderr, want)
	}
}

// TestMain runs the tests under clitest.Main (its collector setting).
func TestMain(m *testing.M) { clitest.Main(m) }
