// Package col names the columns of optimus' tables: one constant per
// distinct column name declared in io/schema, generated from the
// declarations (go generate), so that a misspelt column is a compile
// error rather than a panic or an empty column at run time. A test checks
// that every string literal the module passes to a table accessor is a
// declared column.
package col

//go:generate go run ../internal/gencolumns -o columns_gen.go

// Name is a column name. It is string itself (an alias), so the constants
// go wherever io/table takes a column name.
type Name = string
