// Package collit finds the string literals Go code passes to io/table's
// accessors as column names: for io/schema/col's test that each is a
// declared column, and for colrewrite, which turns them into col's
// constants.
package collit

import (
	"go/ast"
	"go/token"
	"strconv"
	"strings"
)

// Accessors are io/table's methods that take a column name, and which of
// their arguments are names (-1: every argument, as Drop's). The test
// reads source without types, so a method of another type by one of these
// names is checked too; none in the module takes a string literal that is
// not a column.
var Accessors = map[string]int{
	"Strings": 0, "Int64s": 0, "Float64s": 0, "Bools": 0, "Valid": 0, "Has": 0, "Index": 0,
	"Int64Values": 0, "Float64Values": 0, "StringValues": 0, "BoolValues": 0,
	"NullCount": 0, "Validity": 0, "GroupBy": 0,
	"SetStrings": 0, "SetInt64s": 0, "SetFloat64s": 0, "SetFloat64sNaNAsNull": 0, "SetBools": 0, "SetColumn": 0,
	"AdoptInt64s": 0, "AdoptFloat64s": 0,
	"SetStringsRepeated": 0, "SetInt64sRepeated": 0, "SetFloat64sRepeated": 0, "SetFloat64sRepeatedNaNAsNull": 0, "SetBoolsRepeated": 0,
	"Column": 0, // schema.Table.Column (io/table's takes an index)
	"Drop":   -1,
	"Select": -1, // its []string literal
	"Errorf": 0,  // table.Table.Errorf(col, row, ...); fmt.Errorf and the like are told apart by their arguments
}

// Literals returns the string literals f passes to table accessors as
// column names, those of table.Error's Column field, and the first
// argument of calls to the plain functions named in fns (a file's own
// helpers that take a column name; nil for none).
func Literals(f *ast.File, fns map[string]bool) []*ast.BasicLit {
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
			if id, ok := n.Fun.(*ast.Ident); ok && fns[id.Name] && len(n.Args) > 0 {
				str(n.Args[0])
				return true
			}
			sel, ok := n.Fun.(*ast.SelectorExpr)
			if !ok || len(n.Args) == 0 {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); ok && pkgs[id.Name] {
				return true // a package's function (fmt.Errorf), not a method
			}
			arg, ok := Accessors[sel.Sel.Name]
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
				// A first argument with a verb is testing's format, never a
				// column name.
				if lit, ok := n.Args[0].(*ast.BasicLit); ok && lit.Kind == token.STRING && strings.Contains(lit.Value, "%") {
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
