package col_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/optimus-sched/optimus/datasets"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/schema/internal/collit"
)

// isColumn reports whether name is a declared column of some table, a
// member of a named column family (worker_gpu, util_cpu), one of the
// resources the built-in datasets give a cluster (members of its unnamed
// family, which any other name would join too), or "" (table.Errorf's "no
// one column").
func isColumn(name string) bool {
	if name == "" || slices.Contains(datasets.GeneratedResources, name) {
		return true
	}
	for _, t := range schema.All {
		if _, ok := t.Column(name); ok {
			return true
		}
		if p, ok := t.MatchPattern(name); ok && p.Prefix != "" {
			return true
		}
	}
	return false
}

// Every string literal that the module's code (tests aside) passes to a
// table accessor as a column name is a column of some declared table, so
// a misspelt column fails here rather than at run time.
func TestColumnLiteralsAreDeclared(t *testing.T) {
	root := moduleRoot(t)
	fset := token.NewFileSet()
	var bad []string
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (strings.HasPrefix(n, ".") || n == "testdata" || n == "node_modules" || n == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		for _, lit := range collit.Literals(f, nil) {
			name, _ := strconv.Unquote(lit.Value)
			checked++
			if !isColumn(name) {
				rel, _ := filepath.Rel(root, fset.Position(lit.Pos()).Filename)
				bad = append(bad, rel+":"+strconv.Itoa(fset.Position(lit.Pos()).Line)+": "+lit.Value)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Errorf("%s is no column of any table in io/schema", b)
	}
	if checked == 0 {
		t.Fatal("no column literal found: the walk or the accessor list is broken")
	}
}

// A literal that is no column fails the check; a declared one and a
// family member pass.
func TestColumnLiteralsCheckCatchesATypo(t *testing.T) {
	src := `package p
import "fmt"
func f(t, u T) {
	t.Strings("job")
	t.SetFloat64s("worker_gpu", nil, nil)
	u.Int64s("progres_steps")
	t.Errorf("alloc_ps", 3, "x")
	_ = fmt.Errorf("no column %d", 1)
	t.Drop("jobb")
}`
	f, err := parser.ParseFile(token.NewFileSet(), "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, lit := range collit.Literals(f, nil) {
		name, _ := strconv.Unquote(lit.Value)
		got = append(got, name+"="+strconv.FormatBool(isColumn(name)))
	}
	want := "job=true worker_gpu=true progres_steps=false alloc_ps=true jobb=false"
	if s := strings.Join(got, " "); s != want {
		t.Errorf("got %s, want %s", s, want)
	}
}

// moduleRoot is the folder of the module's go.mod.
func moduleRoot(t *testing.T) string {
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's folder")
		}
		dir = parent
	}
}
