package root

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optimus-sched/optimus/cli/clitest"
	"github.com/optimus-sched/optimus/cli/iostreams"
	"github.com/optimus-sched/optimus/executor/kubernetes/ktest"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
)

// run runs optimus in-process, as its tests and the other packages' do.
var run = clitest.Command(NewCmd).Run

// testbed is the embedded testbed exported once (datasets export testbed).
var testbed = clitest.NewFixture("testbed", func(dir string) error {
	return clitest.Command(NewCmd).RunAll([][]string{{"datasets", "export", "testbed", "-o", dir}})
})

// plannedTestbed is the testbed run once through fit, predict, solve and
// place: models, predictions, allocation and plan (.parquet) beside its
// tables.
var plannedTestbed = clitest.NewFixture("testbed", func(dir string) error {
	p := func(name string) string { return filepath.Join(dir, name) }
	return clitest.Command(NewCmd).RunAll([][]string{
		{"datasets", "export", "testbed", "-o", dir},
		{"fit", "-i", p("loss.parquet"), "--speed", p("speed.parquet"), "--jobs", p("jobs.parquet"), "-o", p("models.parquet")},
		{"predict", "-i", p("jobs.parquet"), "--models", p("models.parquet"), "-o", p("predictions.parquet")},
		{"solve", "--cluster", p("cluster.parquet"), "-i", p("predictions.parquet"), "-o", p("allocation.parquet")},
		{"place", "--cluster", p("cluster.parquet"), "-i", p("allocation.parquet"), "-o", p("plan.parquet")},
	})
})

// exportTestbed returns a copy of the exported testbed, the test's own.
func exportTestbed(t *testing.T) string {
	t.Helper()
	return testbed.Copy(t)
}

// TestMain runs the tests; with OPTIMUS_TEST_MAIN=1 the test binary is
// optimus itself (main's code), so that scripts the tests run with bash
// (the README's cron job, cron_test.go) call the code under test.
func TestMain(m *testing.M) {
	if os.Getenv("OPTIMUS_TEST_MAIN") == "1" {
		os.Exit(Main(iostreams.System(), os.Args[1:]))
	}
	clitest.Main(m, ktest.StopShared)
}

var testbedTables = []string{"cluster", "jobs", "loss", "speed", "truth"}

func TestExportIsDeterministic(t *testing.T) {
	a, b := testbed.Dir(t), filepath.Join(t.TempDir(), "testbed")
	if code, _, stderr := run(t, nil, "datasets", "export", "testbed", "-o", b); code != 0 {
		t.Fatal(stderr)
	}
	for _, name := range testbedTables {
		x, err := os.ReadFile(filepath.Join(a, name+".parquet"))
		if err != nil {
			t.Fatal(err)
		}
		y, _ := os.ReadFile(filepath.Join(b, name+".parquet"))
		if !bytes.Equal(x, y) {
			t.Errorf("%s.parquet differs between two exports with the same seed", name)
		}
	}
	other := filepath.Join(t.TempDir(), "seed2")
	if code, _, stderr := run(t, nil, "datasets", "export", "testbed", "-o", other, "--seed", "2"); code != 0 {
		t.Fatal(stderr)
	}
	x, _ := os.ReadFile(filepath.Join(a, "loss.parquet"))
	y, _ := os.ReadFile(filepath.Join(other, "loss.parquet"))
	if bytes.Equal(x, y) {
		t.Error("a different seed gave the same loss table")
	}
}

// Every table of the testbed converts through every format pair and back
// with identical content.
func TestConvertRoundTripsEveryFormatPair(t *testing.T) {
	dir := exportTestbed(t)
	exts := []string{".parquet", ".arrow", ".arrows", ".csv"}
	for _, name := range testbedTables {
		orig, err := table.ReadFile(filepath.Join(dir, name+".parquet"), nil)
		if err != nil {
			t.Fatal(err)
		}
		if orig.Name != name {
			t.Fatalf("%s.parquet read as %q", name, orig.Name)
		}
		for _, from := range exts {
			src := filepath.Join(t.TempDir(), name+from)
			if code, _, stderr := run(t, nil, "convert", "-i", filepath.Join(dir, name+".parquet"), "-o", src); code != 0 {
				t.Fatalf("to %s: %s", from, stderr)
			}
			for _, to := range exts {
				dst := filepath.Join(t.TempDir(), name+to)
				if code, _, stderr := run(t, nil, "convert", "-i", src, "-o", dst); code != 0 {
					t.Fatalf("%s -> %s: exit %d: %s", from, to, code, stderr)
				}
				back, err := table.ReadFile(dst, nil)
				if err != nil {
					t.Fatal(err)
				}
				if d := table.Diff(orig, back); d != "" {
					t.Errorf("%s %s -> %s: %s", name, from, to, d)
				}
			}
		}
	}
}

// `optimus convert -i x.parquet | optimus convert -o y.arrow`, in-process.
func TestConvertThroughPipe(t *testing.T) {
	dir := exportTestbed(t)
	code, stream, stderr := run(t, nil, "convert", "-i", filepath.Join(dir, "jobs.parquet"))
	if code != 0 {
		t.Fatal(stderr)
	}
	if !bytes.HasPrefix(stream, []byte{0xff, 0xff, 0xff, 0xff}) {
		t.Fatalf("piped output is not an Arrow stream: % x", stream[:8])
	}
	out := filepath.Join(t.TempDir(), "y.arrow")
	if code, _, stderr := run(t, stream, "convert", "-o", out); code != 0 {
		t.Fatal(stderr)
	}
	a, _ := table.ReadFile(filepath.Join(dir, "jobs.parquet"), schema.Jobs)
	b, err := table.ReadFile(out, schema.Jobs)
	if err != nil {
		t.Fatal(err)
	}
	if d := table.Diff(a, b); d != "" {
		t.Error(d)
	}
	// CSV and Parquet on standard input are recognised too.
	for _, format := range []string{"csv", "parquet", "arrow"} {
		code, data, stderr := run(t, nil, "convert", "-i", filepath.Join(dir, "jobs.parquet"), "--format", format)
		if code != 0 {
			t.Fatal(stderr)
		}
		code, stream, stderr := run(t, data, "convert")
		if code != 0 {
			t.Fatalf("%s on stdin: %s", format, stderr)
		}
		c, err := table.Read(bytes.NewReader(stream), "stream", nil)
		if err != nil {
			t.Fatal(err)
		}
		if d := table.Diff(a, c); d != "" {
			t.Errorf("%s on stdin: %s", format, d)
		}
	}
}

func TestTerminalOutputIsText(t *testing.T) {
	dir := exportTestbed(t)
	ios, _, out, _ := iostreams.Test()
	ios.SetStdoutTTY(true)
	if code := Main(ios, []string{"convert", "-i", filepath.Join(dir, "cluster.parquet")}); code != 0 {
		t.Fatal("exit", code)
	}
	got := out.String()
	for _, want := range []string{"node", "gpu-01", "cpu-07", "(cluster: 13 rows, 5 columns)"} {
		if !strings.Contains(got, want) {
			t.Errorf("text output lacks %q:\n%s", want, got)
		}
	}
}

// Ten and more kinds of broken input: each exits 2 with one line naming the
// problem and its place, and leaves no output file.
func TestBadInputExitsTwoAndWritesNothing(t *testing.T) {
	dir := exportTestbed(t)
	good, _ := os.ReadFile(filepath.Join(dir, "jobs.parquet"))
	tmp := t.TempDir()
	write := func(name string, data []byte) string {
		p := filepath.Join(tmp, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	mkdir := func(name string) string {
		p := filepath.Join(tmp, name)
		if err := os.Mkdir(p, 0o755); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"truncated parquet", []string{"-i", write("trunc.parquet", good[:len(good)/2])}, "trunc.parquet: not a valid Parquet"},
		{"empty file", []string{"-i", write("empty.csv", nil)}, "empty.csv: empty input"},
		{"csv missing column", []string{"--as", "jobs", "-i", write("nomode.csv", []byte("job,model,global_batch,epoch_steps\na,m,32,100\n"))},
			`nomode.csv: missing required column "mode" of the jobs table`},
		{"wrong column type", []string{"-i", write("type.csv", []byte("job,ps,workers,speed\na,x,y,z\nb,one,two,three\n"))}, `type.csv: column "ps", row 1 (line 2): "x" is not a whole number (and 2 more problems)`},
		{"NaN capacity", []string{"-i", write("nan.csv", []byte("node,gpu\nn1,4\nn2,NaN\n"))}, `nan.csv: column "gpu", row 2 (line 3): NaN is not allowed`},
		{"negative capacity", []string{"-i", write("neg.csv", []byte("node,gpu\nn1,-4\n"))}, `neg.csv: column "gpu", row 1 (line 2): -4 is negative`},
		{"duplicate id", []string{"-i", write("dup.csv", []byte("node,gpu\nn1,4\nn1,4\n"))}, `dup.csv: column "node", row 2 (line 3): duplicate node "n1" (first at row 1)`},
		{"negative demand", []string{"--as", "jobs", "-i", write("dem.csv", []byte("job,model,mode,global_batch,epoch_steps,worker_gpu\na,m,sync,32,100,-1\n"))},
			`dem.csv: column "worker_gpu", row 1 (line 2): -1 is negative`},
		{"ragged csv", []string{"-i", write("ragged.csv", []byte("node,gpu\nn1,4,5\n"))}, "ragged.csv: line 2: wrong number of fields"},
		{"binary garbage", []string{"-i", write("junk.bin", []byte{0, 1, 2, 3, 0xfe})}, "junk.bin: unrecognised input"},
		{"parquet named csv", []string{"-i", write("lie.csv", good)}, "lie.csv: not a valid CSV file (its first bytes are those of a Parquet file)"},
		{"wrong table kind", []string{"--as", "cluster", "-i", filepath.Join(dir, "jobs.parquet")}, "is a jobs table, but a cluster table is expected"},
		{"missing file", []string{"-i", filepath.Join(tmp, "nope.parquet")}, "nope.parquet: no such file"},
		{"unknown output format", []string{"-i", filepath.Join(dir, "jobs.parquet"), "-o", filepath.Join(tmp, "x.xlsx")}, `unknown table format ".xlsx"`},
		{"output is a directory", []string{"-i", filepath.Join(dir, "jobs.parquet"), "-o", tmp}, "is a directory: name a file in it"},
		{"output is a directory named .parquet", []string{"-i", filepath.Join(dir, "jobs.parquet"), "-o", mkdir("d.parquet")}, "d.parquet is a directory"},
		{"output in a missing directory", []string{"-i", filepath.Join(dir, "jobs.parquet"), "-o", filepath.Join(tmp, "nodir", "x.parquet")},
			"nodir/x.parquet: there is no directory " + filepath.Join(tmp, "nodir") + " (optimus writes files into existing directories)"},
		{"output under a file", []string{"-i", filepath.Join(dir, "jobs.parquet"), "-o", filepath.Join(write("plain", nil), "x.parquet")},
			"plain/x.parquet: " + filepath.Join(tmp, "plain") + " is a file, not a directory"},
		{"unknown table kind", []string{"--as", "nope", "-i", filepath.Join(dir, "jobs.parquet")}, `--as "nope": no such table (known: cluster, jobs, loss, `},
		{"bad flag", []string{"--nope"}, "unknown flag: --nope; see 'optimus convert --help'"},
		{"a column named twice", []string{"-i", filepath.Join(dir, "jobs.parquet"), "-c", "job,model,job"}, `--columns job,model,job: column "job" is named twice`},
	}
	for _, c := range cases {
		out := filepath.Join(tmp, "out-"+strings.ReplaceAll(c.name, " ", "-")+".parquet")
		args := append([]string{"convert"}, c.args...)
		if !strings.Contains(strings.Join(c.args, " "), "-o") {
			args = append(args, "-o", out)
		}
		code, _, stderr := run(t, nil, args...)
		if code != 2 {
			t.Errorf("%s: exit %d, want 2 (%s)", c.name, code, stderr)
		}
		line := strings.TrimSuffix(stderr, "\n")
		if strings.Contains(line, "\n") || strings.Contains(line, `\n`) {
			t.Errorf("%s: error is not one line: %q", c.name, stderr)
		}
		if !strings.HasPrefix(line, "optimus: ") || !strings.Contains(line, c.want) {
			t.Errorf("%s:\n got %q\nwant it to contain %q", c.name, line, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s: output file was written", c.name)
		}
	}
	entries, _ := os.ReadDir(tmp)
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

// An output that cannot be written (a file where a directory must be, a
// directory that does not exist) is refused before the command reads or
// computes anything, for every kind of output path, and nothing is
// created.
func TestUnwritableOutputPathsExitTwo(t *testing.T) {
	dir := exportTestbed(t)
	tmp := t.TempDir()
	file := filepath.Join(tmp, "plain")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(tmp, "nodir")
	loss := filepath.Join(dir, "loss.parquet")
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"export into a file", []string{"datasets", "export", "testbed", "-o", file}, "-o " + file + " is a file: name a directory (it is created when missing)"},
		{"export under a file", []string{"datasets", "export", "testbed", "-o", filepath.Join(file, "sub")}, file + " is a file, not a directory"},
		{"simulate --dir a file", []string{"simulate", "--dir", file, "-o", filepath.Join(tmp, "s.csv")}, "--dir " + file + " is a file"},
		{"simulate --dir under a file", []string{"simulate", "--dir", filepath.Join(file, "a", "b"), "-o", filepath.Join(tmp, "s.csv")}, file + " is a file, not a directory"},
		{"simulate -o below the --dir it creates", []string{"simulate", "--dir", filepath.Join(tmp, "sim"), "-o", filepath.Join(tmp, "sim", "sub", "s.csv")},
			"there is no directory " + filepath.Join(tmp, "sim", "sub")},
		{"metrics into a file", []string{"metrics", dir, "-o", file}, "-o " + file + " is a file"},
		{"generate's cluster in a missing directory", []string{"datasets", "generate", "--tasks", "10", "--cluster", filepath.Join(missing, "c.parquet"), "-o", filepath.Join(tmp, "p.parquet")},
			"--cluster " + filepath.Join(missing, "c.parquet") + ": there is no directory " + missing},
		{"generate's cluster a directory", []string{"datasets", "generate", "--tasks", "10", "--cluster", tmp, "-o", filepath.Join(tmp, "p.parquet")}, "--cluster " + tmp + " is a directory: name a file in it"},
		{"chart in a missing directory", []string{"chart", "loss", "-i", loss, "-o", filepath.Join(missing, "c.html")}, "there is no directory " + missing},
		{"chart into a directory", []string{"chart", "loss", "-i", loss, "-o", tmp}, "-o " + tmp + " is a directory: name a file in it"},
		{"report under a file", []string{"report", "--loss", loss, "-o", filepath.Join(file, "r.html")}, file + " is a file, not a directory"},
		{"solve in a missing directory", []string{"solve", "-i", loss, "-o", filepath.Join(missing, "a.parquet")}, "there is no directory " + missing},
	} {
		code, _, stderr := run(t, nil, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%s: exit %d, %q; want exit 2 and %q", c.name, code, stderr, c.want)
		}
	}
	entries, _ := os.ReadDir(tmp)
	if len(entries) != 1 {
		t.Errorf("files left in %s: %v", tmp, entries)
	}
}

func TestNoInputAtTerminal(t *testing.T) {
	ios, _, _, errOut := iostreams.Test()
	ios.SetStdinTTY(true)
	if code := Main(ios, []string{"convert"}); code != 2 {
		t.Errorf("exit %d, want 2", code)
	}
	if !strings.Contains(errOut.String(), "no input") {
		t.Errorf("stderr: %q", errOut.String())
	}
}

func TestDocsTablesIsGenerated(t *testing.T) {
	got, err := os.ReadFile("../../docs/tables.md")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != schema.Markdown() {
		t.Error("docs/tables.md is out of date: run 'make docs'")
	}
}

func TestConvertColumns(t *testing.T) {
	dir := exportTestbed(t)
	code, out, stderr := run(t, nil, "convert", "-i", filepath.Join(dir, "jobs.parquet"), "--columns", "job,workers", "--format", "csv")
	if code != 0 {
		t.Fatal(stderr)
	}
	if !strings.HasPrefix(string(out), "job,workers\nresnet50-a,2\n") {
		t.Errorf("got %q", out)
	}
	code, _, stderr = run(t, nil, "convert", "-i", filepath.Join(dir, "jobs.parquet"), "-c", "job,nope")
	if code != 2 || !strings.Contains(stderr, `no column "nope"`) {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

// A wrong number of positional arguments says what the command takes, and
// an unknown subcommand is refused.
func TestPositionalArgumentCounts(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"metrics", "-o", "m"}, "metrics takes one argument, ROOT, the directory of the jobs' logs; got 0"},
		{[]string{"metrics", "a", "b", "-o", "m"}, "metrics takes one argument, ROOT, the directory of the jobs' logs; got 2"},
		{[]string{"datasets", "export", "-o", "d"}, "datasets export takes one argument, the dataset's NAME (optimus datasets lists them); got 0"},
		{[]string{"datasets", "import", "pollux", "-o", "d"}, "datasets import takes two arguments, the workload's KIND (pollux) and its FILE; got 1"},
		{[]string{"init"}, "init takes one argument, the state file to write"},
		{[]string{"schema", "jobs", "plan"}, "schema takes at most one argument, a table's name (optimus schema lists them); got 2"},
		// A command that groups others names them (cobra showed the help and exited 0).
		{[]string{"datasets", "exprot", "testbed"}, `unknown command "exprot" for "optimus datasets" (its commands: export, generate, import, list)`},
		{[]string{"eval", "sped"}, `unknown command "sped" for "optimus eval" (its commands: convergence, speed)`},
		{[]string{"completion", "tcsh"}, `unknown command "tcsh" for "optimus completion" (its commands: bash, fish, powershell, zsh)`},
	} {
		code, _, stderr := run(t, nil, c.args...)
		if code != 2 || stderr != "optimus: "+c.want+"\n" && !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want exit 2 and %q", c.args, code, stderr, c.want)
		}
	}
	for _, group := range []string{"datasets", "eval", "completion"} {
		if code, stdout, stderr := run(t, nil, group); code != 0 || !bytes.Contains(stdout, []byte("Available Commands:")) {
			t.Errorf("%s alone: exit %d, %q; want its help", group, code, stderr)
		}
	}
}
