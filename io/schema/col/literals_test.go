package col_test

import (
	"go/ast"
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
)

// accessors are io/table's methods that take a column name, and which of
// their arguments are names (-1: every argument, as Drop's). The test
// reads source without types, so a method of another type by one of these
// names is checked too; none in the module takes a string literal that is
// not a column.
var accessors = map[string]int{
	"Strings": 0, "Int64s": 0, "Float64s": 0, "Bools": 0, "Valid": 0, "Has": 0, "Index": 0,
	"Int64Values": 0, "Float64Values": 0, "StringValues": 0, "BoolValues": 0,
	"NullCount": 0, "Validity": 0, "GroupBy": 0,
	"SetStrings": 0, "SetInt64s": 0, "SetFloat64s": 0, "SetFloat64sNaNAsNull": 0, "SetBools": 0, "SetColumn": 0,
	"SetStringsRepeated": 0, "SetInt64sRepeated": 0, "SetFloat64sRepeated": 0, "SetFloat64sRepeatedNaNAsNull": 0, "SetBoolsRepeated": 0,
	"Column": 0, // schema.Table.Column (io/table's takes an index)
	"Drop":   -1,
	"Select": -1, // its []string literal
	"Errorf": 0,  // table.Table.Errorf(col, row, ...); fmt.Errorf and the like are told apart by their arguments
}

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
		for _, lit := range columnLiterals(f) {
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
	for _, lit := range columnLiterals(f) {
		name, _ := strconv.Unquote(lit.Value)
		got = append(got, name+"="+strconv.FormatBool(isColumn(name)))
	}
	want := "job=true worker_gpu=true progres_steps=false alloc_ps=true jobb=false"
	if s := strings.Join(got, " "); s != want {
		t.Errorf("got %s, want %s", s, want)
	}
}

// columnLiterals returns the string literals f passes to table accessors
// as column names, and those of table.Error's Column field.
func columnLiterals(f *ast.File) []*ast.BasicLit {
	pkgs := map[string]bool{}
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		name := p[strings.LastIndex(p, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		pkgs[name] = true
	}
	var out []*ast.BasicLit
	str := func(e ast.Expr) {
		if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
			out = append(out, lit)
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			sel, ok := n.Fun.(*ast.SelectorExpr)
			if !ok || len(n.Args) == 0 {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); ok && pkgs[id.Name] {
				return true // a package's function (fmt.Errorf), not a method
			}
			arg, ok := accessors[sel.Sel.Name]
			if !ok {
				return true
			}
			if sel.Sel.Name == "Errorf" {
				// table.Table.Errorf(col, row, format, ...): a format string
				// comes second; testing's and the like's first.
				if len(n.Args) < 3 {
					return true
				}
				if lit, ok := n.Args[1].(*ast.BasicLit); ok && lit.Kind == token.STRING {
					return true
				}
			}
			if arg >= 0 {
				str(n.Args[arg])
				return true
			}
			for _, a := range n.Args {
				if cl, ok := a.(*ast.CompositeLit); ok {
					for _, e := range cl.Elts {
						str(e)
					}
					continue
				}
				str(a)
			}
		case *ast.CompositeLit:
			if sel, ok := n.Type.(*ast.SelectorExpr); ok && sel.Sel.Name == "Error" {
				if id, ok := sel.X.(*ast.Ident); ok && id.Name == "table" {
					for _, e := range n.Elts {
						if kv, ok := e.(*ast.KeyValueExpr); ok {
							if k, ok := kv.Key.(*ast.Ident); ok && k.Name == "Column" {
								str(kv.Value)
							}
						}
					}
				}
			}
		}
		return true
	})
	return out
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
