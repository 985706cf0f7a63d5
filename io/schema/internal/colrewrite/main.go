// Command colrewrite replaces, in the Go files it is given, the string
// literals passed to table accessors as column names (package collit)
// with io/schema/col's constants, and imports col where needed: the
// mechanical rewrite of issue 18, to be run again over code written with
// literals. It leaves alone a literal that is no column (the test in
// io/schema/col reports it) and says so of a file with a local identifier
// col, whose uses the compiler then checks.
//
//	go run ./io/schema/internal/colrewrite [-fn str,num] FILE...
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/optimus-sched/optimus/io/schema/internal/collit"
)

const colPath = "github.com/optimus-sched/optimus/io/schema/col"

func main() {
	gen := flag.String("gen", "io/schema/col/columns_gen.go", "the generated constants, in `FILE`")
	fnList := flag.String("fn", "", "comma-separated plain `FUNCTIONS` whose first argument is a column name")
	flag.Parse()
	fns := map[string]bool{}
	for _, f := range strings.Split(*fnList, ",") {
		if f != "" {
			fns[f] = true
		}
	}
	consts, err := constants(*gen)
	if err == nil {
		total := 0
		for _, path := range flag.Args() {
			var n int
			if n, err = rewrite(path, consts, fns); err != nil {
				err = fmt.Errorf("%s: %w", path, err)
				break
			}
			if n > 0 {
				fmt.Printf("%s: %d\n", path, n)
			}
			total += n
		}
		fmt.Println("total", total)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "colrewrite:", err)
		os.Exit(1)
	}
}

// constants maps each column name of the generated file to its constant.
func constants(path string) (map[string]string, error) {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		return nil, err
	}
	consts := map[string]string{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			if lit, ok := vs.Values[0].(*ast.BasicLit); ok {
				v, _ := strconv.Unquote(lit.Value)
				consts[v] = vs.Names[0].Name
			}
		}
	}
	return consts, nil
}

// rewrite replaces path's column literals and returns how many.
func rewrite(path string, consts map[string]string, fns map[string]bool) (int, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
	if err != nil {
		return 0, err
	}
	var lits []*ast.BasicLit
	for _, l := range collit.Literals(f, fns) {
		if v, _ := strconv.Unquote(l.Value); consts[v] != "" {
			lits = append(lits, l)
		}
	}
	if len(lits) == 0 {
		return 0, nil
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && id.Name == "col" {
			fmt.Fprintf(os.Stderr, "%s: a local identifier col: check that it compiles\n", path)
			return false
		}
		return true
	})
	var last *ast.ImportSpec
	imported := false
	for _, imp := range f.Imports {
		if imp.Path.Value == strconv.Quote(colPath) {
			imported = true
		}
		if strings.HasPrefix(imp.Path.Value, `"github.com/optimus-sched/optimus/`) {
			last = imp
		}
	}
	if !imported && last == nil {
		return 0, fmt.Errorf("no optimus import to put col beside: import %s by hand", colPath)
	}
	sort.Slice(lits, func(i, j int) bool { return lits[i].Pos() > lits[j].Pos() })
	out := string(src)
	for _, l := range lits {
		v, _ := strconv.Unquote(l.Value)
		a, b := fset.Position(l.Pos()).Offset, fset.Position(l.End()).Offset
		out = out[:a] + "col." + consts[v] + out[b:]
	}
	if !imported {
		// After the last optimus import, which comes before every literal;
		// gofmt sorts the group.
		i := fset.Position(last.End()).Offset
		j := i + strings.Index(out[i:], "\n") + 1
		out = out[:j] + "\t" + strconv.Quote(colPath) + "\n" + out[j:]
	}
	return len(lits), os.WriteFile(path, []byte(out), 0o644)
}
