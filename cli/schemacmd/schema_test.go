package schemacmd

import (
	"encoding/json"
	"testing"

	"github.com/optimus-sched/optimus/cli/iostreams"
	"github.com/optimus-sched/optimus/io/schema"
)

func runSchema(t *testing.T, args ...string) ([]byte, error) {
	t.Helper()
	ios, _, out, _ := iostreams.Test()
	cmd := NewCmd(ios)
	cmd.SetArgs(args)
	cmd.SilenceUsage, cmd.SilenceErrors = true, true
	err := cmd.Execute()
	return out.Bytes(), err
}

// --json lists every declared table with every column (inherited ones
// included) and its type and nullability, as the interop checks read them.
func TestJSONListsEveryTable(t *testing.T) {
	out, err := runSchema(t, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var got jsonSchema
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if got.MetaName != schema.MetaName || got.MetaVersion != schema.MetaVersion {
		t.Errorf("metadata keys %q %q", got.MetaName, got.MetaVersion)
	}
	if len(got.Tables) != len(schema.All) {
		t.Fatalf("%d tables, want %d", len(got.Tables), len(schema.All))
	}
	for i, s := range schema.All {
		jt := got.Tables[i]
		if jt.Name != s.Name || jt.Version != s.Version {
			t.Errorf("table %d: %s v%d, want %s v%d", i, jt.Name, jt.Version, s.Name, s.Version)
		}
		cols := s.AllColumns()
		if len(jt.Columns) != len(cols) {
			t.Errorf("%s: %d columns, want %d", s.Name, len(jt.Columns), len(cols))
			continue
		}
		for j, c := range cols {
			jc := jt.Columns[j]
			if jc.Name != c.Name || jc.Type != c.Type.String() || jc.Nullable != c.Nullable || jc.Required != c.Required {
				t.Errorf("%s.%s: got %+v", s.Name, c.Name, jc)
			}
		}
		if len(jt.Patterns) != len(s.AllPatterns()) {
			t.Errorf("%s: %d patterns, want %d", s.Name, len(jt.Patterns), len(s.AllPatterns()))
		}
	}
}

func TestJSONOneTable(t *testing.T) {
	out, err := runSchema(t, "--json", "jobs")
	if err != nil {
		t.Fatal(err)
	}
	var jt jsonTable
	if err := json.Unmarshal(out, &jt); err != nil {
		t.Fatal(err)
	}
	byName := map[string]jsonColumn{}
	for _, c := range jt.Columns {
		byName[c.Name] = c
	}
	if c := byName["epoch_budget"]; c.Type != "float64" || !c.Nullable || c.Default != nil {
		t.Errorf("epoch_budget: %+v", c)
	}
	if c := byName["weight"]; c.Default == nil || *c.Default != "1" || c.Nullable {
		t.Errorf("weight: %+v", c)
	}
	if len(jt.Patterns) != 2 || jt.Patterns[0].Prefix != "worker_" {
		t.Errorf("patterns: %+v", jt.Patterns)
	}
}

func TestJSONErrors(t *testing.T) {
	if _, err := runSchema(t, "--json", "nope"); err == nil {
		t.Error("unknown table accepted")
	}
	if _, err := runSchema(t, "--json", "--markdown"); err == nil {
		t.Error("--json with --markdown accepted")
	}
}
