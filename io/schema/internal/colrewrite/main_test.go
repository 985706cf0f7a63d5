package main

import (
	"os"
	"path/filepath"
	"testing"
)

// A column literal becomes col's constant and col is imported; a literal
// that is no column, and a string that is no column argument, stay.
func TestRewrite(t *testing.T) {
	consts, err := constants("../../col/columns_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	src := `package p

import (
	"fmt"

	"github.com/optimus-sched/optimus/io/table"
)

func f(t *table.Table) {
	t.Int64s("alloc_ps")
	t.Strings("no_such_column")
	set("job", 1)
	fmt.Println("job")
}
`
	want := `package p

import (
	"fmt"

	"github.com/optimus-sched/optimus/io/table"
	"github.com/optimus-sched/optimus/io/schema/col"
)

func f(t *table.Table) {
	t.Int64s(col.AllocPS)
	t.Strings("no_such_column")
	set(col.Job, 1)
	fmt.Println("job")
}
`
	path := filepath.Join(t.TempDir(), "p.go")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	n, err := rewrite(path, consts, map[string]bool{"set": true})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if n != 2 || string(got) != want {
		t.Errorf("%d replaced, file:\n%s\nwant 2 and:\n%s", n, got, want)
	}
}
