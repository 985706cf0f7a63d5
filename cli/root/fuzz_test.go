package root

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/optimus-sched/optimus/io/table"
)

// fuzzInputs are the testbed's tables and the pipeline's outputs on them,
// as CSV (the format a hostile or careless user edits by hand), made once.
var (
	fuzzOnce  sync.Once
	fuzzDir   string
	fuzzFiles map[string][]byte
	// fuzzParquet are the same tables as Parquet: a mutated one runs the
	// decoders that read columns side by side, each on its goroutine.
	fuzzParquet map[string][]byte
)

func fuzzSetup(f *testing.F) {
	fuzzOnce.Do(func() {
		dir, err := os.MkdirTemp("", "optimus-fuzz")
		if err != nil {
			f.Fatal(err)
		}
		fuzzDir = dir
		p := func(n string) string { return filepath.Join(dir, n) }
		steps := [][]string{
			{"datasets", "export", "testbed", "-o", dir, "--format", "csv"},
			{"fit", "-i", p("loss.csv"), "--speed", p("speed.csv"), "--jobs", p("jobs.csv"), "-o", p("models.csv")},
			{"predict", "-i", p("jobs.csv"), "--models", p("models.csv"), "-o", p("predictions.csv")},
			{"solve", "--cluster", p("cluster.csv"), "-i", p("predictions.csv"), "-o", p("allocation.csv")},
			{"place", "--cluster", p("cluster.csv"), "-i", p("allocation.csv"), "-o", p("plan.csv")},
			{"datasets", "export", "simulate-testbed", "-o", p("sim"), "--format", "csv"},
		}
		for _, args := range steps {
			if code, _, stderr := Run(nil, args...); code != 0 {
				f.Fatalf("%v: exit %d: %s", args, code, stderr)
			}
		}
		fuzzFiles = map[string][]byte{}
		fuzzParquet = map[string][]byte{}
		for _, n := range []string{"cluster", "jobs", "loss", "speed", "models", "predictions", "allocation", "plan",
			"sim/workload", "sim/profiles", "sim/cluster", "sim/profile_speeds"} {
			data, err := os.ReadFile(p(n + ".csv"))
			if err != nil {
				f.Fatal(err)
			}
			fuzzFiles[n] = data
			t, err := table.ReadFile(p(n+".csv"), nil)
			if err != nil {
				f.Fatal(err)
			}
			var buf bytes.Buffer
			if err := table.Write(&buf, table.Parquet, t); err != nil {
				f.Fatal(err)
			}
			fuzzParquet[n] = buf.Bytes()
		}
	})
}

// fuzzCommands are the command lines the fuzzer runs; FUZZ stands for the
// mutated input (written to a CSV file) and NAME.csv for the unmutated
// tables of fuzzSetup.
var fuzzCommands = []struct {
	mutates string // which table the mutated input replaces
	args    []string
	output  string // "" a table (out.csv), "html" a page (out.html), "dir" snapshot's folder
}{
	{"loss", []string{"fit", "-i", "FUZZ", "--speed", "speed.csv", "--jobs", "jobs.csv"}, ""},
	{"speed", []string{"fit", "-i", "loss.csv", "--speed", "FUZZ", "--jobs", "jobs.csv"}, ""},
	{"jobs", []string{"predict", "-i", "FUZZ", "--models", "models.csv"}, ""},
	{"models", []string{"predict", "-i", "jobs.csv", "--models", "FUZZ"}, ""},
	{"predictions", []string{"solve", "-i", "FUZZ", "--cluster", "cluster.csv"}, ""},
	{"cluster", []string{"solve", "-i", "predictions.csv", "--cluster", "FUZZ"}, ""},
	{"allocation", []string{"place", "-i", "FUZZ", "--cluster", "cluster.csv"}, ""},
	{"cluster", []string{"place", "-i", "allocation.csv", "--cluster", "FUZZ"}, ""},
	{"plan", []string{"place", "-i", "allocation.csv", "--cluster", "cluster.csv", "--current", "FUZZ"}, ""},
	{"loss", []string{"eval", "convergence", "-i", "FUZZ", "--jobs", "jobs.csv"}, ""},
	{"speed", []string{"eval", "speed", "-i", "FUZZ"}, ""},
	{"jobs", []string{"fit", "suggest", "-i", "FUZZ"}, ""},
	{"plan", []string{"apply", "-i", "FUZZ", "--jobs", "jobs.csv", "--executor", "print"}, ""},
	{"jobs", []string{"apply", "-i", "plan.csv", "--jobs", "FUZZ", "--executor", "print", "--manifests"}, ""},
	{"plan", []string{"apply", "-i", "plan.csv", "--jobs", "jobs.csv", "--executor", "print", "--current", "FUZZ"}, ""},
	{"sim/workload", simulateArgs("FUZZ", "sim/profiles.csv", "sim/cluster.csv"), ""},
	{"sim/profiles", simulateArgs("sim/workload.csv", "FUZZ", "sim/cluster.csv"), ""},
	{"sim/cluster", simulateArgs("sim/workload.csv", "sim/profiles.csv", "FUZZ"), ""},
	// Appended, so that the corpus' command numbers keep their commands.
	{"plan", []string{"chart", "plan", "-i", "FUZZ", "--cluster", "cluster.csv"}, "html"},
	{"loss", []string{"chart", "loss", "-i", "FUZZ", "--models", "models.csv", "--predictions", "predictions.csv"}, "html"},
	{"speed", []string{"chart", "speed", "-i", "FUZZ", "--models", "models.csv"}, "html"},
	{"allocation", []string{"chart", "allocation", "-i", "FUZZ", "--cluster", "cluster.csv"}, "html"},
	{"predictions", []string{"report", "--predictions", "FUZZ", "--allocation", "allocation.csv", "--plan", "plan.csv", "--cluster", "cluster.csv", "--models", "models.csv", "--loss", "loss.csv"}, "html"},
	{"plan", []string{"report", "--plan", "FUZZ", "--allocation", "allocation.csv", "--cluster", "cluster.csv", "--predictions", "predictions.csv"}, "html"},
	{"plan", []string{"apply", "-i", "FUZZ", "--jobs", "jobs.csv", "--executor", "exec", "--program", "/bin/true", "--dry-run"}, ""},
	{"jobs", []string{"apply", "-i", "plan.csv", "--jobs", "FUZZ", "--executor", "exec", "--program", "/bin/true", "--dry-run"}, ""},
	{"plan", []string{"apply", "-i", "plan.csv", "--jobs", "jobs.csv", "--executor", "exec", "--program", "/bin/true", "--dry-run", "--current", "FUZZ"}, ""},
	// The mutated plan becomes the pods, the cluster's nodes the nodes, of
	// an API server in the test (ktest.FakeLister): snapshot offline.
	{"plan", []string{"snapshot", "kubernetes", "--kubeconfig", "KUBECONFIG", "--jobs", "jobs.csv"}, "dir"},
}

func simulateArgs(workload, profiles, cluster string) []string {
	return []string{"simulate", "--workload", workload, "--profiles", profiles, "--cluster", cluster,
		"--profile-speeds", "sim/profile_speeds.csv", "--seeds", "1", "--policies", "optimus,drf", "-q", "--intervals=false"}
}

// unmutated is the command line args runs on the unmutated tables: FUZZ
// replaced by the table it stands for.
func unmutated(args []string, mutates string) string {
	line := slices.Clone(args)
	if i := slices.Index(line, "FUZZ"); i >= 0 {
		line[i] = mutates + ".csv"
	} else {
		line = append(line, "<-", mutates+".csv")
	}
	return strings.Join(line, " ")
}

// FuzzCommand runs whole commands on mutated valid inputs: whatever the
// input, a command exits 0 with a readable output, or 2 (invalid input)
// or 1 with a message; it never panics and never reports an internal
// error. Run it with, for example,
//
//	OPTIMUS_FUZZ_COMMAND=solve go test ./cli/root -run '^$' -fuzz '^FuzzCommand$' -fuzztime 10m -parallel 1
func FuzzCommand(f *testing.F) {
	fuzzSetup(f)
	validLines := map[string]bool{}
	for i, c := range fuzzCommands {
		valid := fuzzFiles[c.mutates]
		// Unmutated, the command lines that differ only in which table is
		// fuzzed (fit's loss or speed, say) are one command line: seed it once.
		if line := unmutated(c.args, c.mutates); !validLines[line] {
			validLines[line] = true
			f.Add(uint8(i), valid)
		}
		if c.output != "" || slices.Contains(c.args, "exec") {
			// The paths that show names (pages, argv, a cluster's objects):
			// hostile names as seeds. The breakages below are the readers',
			// seeded on the commands above already.
			for _, payloads := range namePayloads {
				f.Add(uint8(i), renameJobs(f, valid, payloads))
			}
			continue
		}
		lines := strings.SplitAfter(string(valid), "\n")
		if len(lines) > 2 {
			// A few classic breakages as seeds: a cut table, a doubled row,
			// a huge number.
			f.Add(uint8(i), []byte(strings.Join(lines[:len(lines)/2], "")+lines[len(lines)/2][:len(lines[len(lines)/2])/2]))
			f.Add(uint8(i), []byte(strings.Join(append(lines, lines[1]), "")))
			f.Add(uint8(i), []byte(strings.Replace(string(valid), ",1,", ",9223372036854775807,", 1)))
		}
		pq := fuzzParquet[c.mutates]
		f.Add(uint8(i), pq)
		for _, at := range []int{len(pq) / 4, len(pq) / 3, len(pq) / 2} {
			b := bytes.Clone(pq)
			b[at] ^= 0x80
			f.Add(uint8(i), b)
		}
	}
	// OPTIMUS_FUZZ_COMMAND=solve (say) fuzzes only the command lines that
	// start with that word, for a session of its own.
	commands := fuzzCommands[:0:0]
	for _, c := range fuzzCommands {
		if only := os.Getenv("OPTIMUS_FUZZ_COMMAND"); only == "" || c.args[0] == only {
			commands = append(commands, c)
		}
	}
	if len(commands) == 0 {
		f.Fatalf("OPTIMUS_FUZZ_COMMAND=%s names no command of fuzzCommands", os.Getenv("OPTIMUS_FUZZ_COMMAND"))
	}
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		c := commands[int(which)%len(commands)]
		dir := t.TempDir()
		// Named by what the input looks like, so that mutated Parquet is
		// read as Parquet (in place, its columns side by side).
		ext := map[table.Format]string{table.Parquet: ".parquet", table.ArrowFile: ".arrow", table.ArrowStream: ".arrows"}[table.Sniff(data)]
		if ext == "" {
			ext = ".csv"
		}
		in := filepath.Join(dir, filepath.Base(c.mutates)+ext)
		if err := os.WriteFile(in, data, 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, map[string]string{"": "out.csv", "html": "out.html", "dir": "snap"}[c.output])
		args := make([]string, 0, len(c.args)+2)
		for _, a := range c.args {
			switch {
			case a == "FUZZ":
				a = in
			case a == "KUBECONFIG":
				if a = fakeCluster(t, in); a == "" {
					return // not a plan: no pods to serve
				}
			case strings.HasSuffix(a, ".csv"):
				a = filepath.Join(fuzzDir, a)
			}
			args = append(args, a)
		}
		args = append(args, "-o", out)
		code, _, stderr := Run(nil, args...)
		switch {
		case code == 0:
			checkFuzzOutput(t, args, c.output, out)
		case strings.Contains(stderr, "internal error") || strings.Contains(stderr, "panic"):
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		case code != 1 && code != 2:
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		case !strings.HasPrefix(stderr, "optimus: "):
			t.Fatalf("%v: exit %d without a message: %q", args, code, stderr)
		case code == 2:
			if _, err := os.Stat(out); err == nil {
				t.Fatalf("%v: exit 2 but wrote %s", args, out)
			}
		}
	})
}
