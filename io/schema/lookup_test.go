package schema

import (
	"reflect"
	"strings"
	"testing"
)

// Column and MatchPattern walk the declarations in place; they must answer
// exactly as a search of AllColumns and AllPatterns does, inherited
// declarations first, for every table and every name any table uses.
func TestLookupsAgreeWithTheLists(t *testing.T) {
	names := []string{"", "gpu", "cpu", "worker_gpu", "ps_cpu", "util_gpu", "worker_", "nope"}
	for _, tab := range All {
		for _, c := range tab.AllColumns() {
			names = append(names, c.Name, "worker_"+c.Name, c.Name+"_x")
		}
		for _, p := range tab.AllPatterns() {
			names = append(names, p.Prefix, p.Prefix+"gpu")
			names = append(names, p.Known...)
		}
	}
	for _, tab := range All {
		for _, n := range names {
			want, wantOK := Column{}, false
			for _, c := range tab.AllColumns() {
				if c.Name == n {
					want, wantOK = c, true
					break
				}
			}
			if got, ok := tab.Column(n); ok != wantOK || !reflect.DeepEqual(got, want) {
				t.Errorf("%s.Column(%q) = %+v, %v; the list holds %+v, %v", tab.Name, n, got, ok, want, wantOK)
			}
			wantP, wantPOK := Pattern{}, false
			for _, p := range tab.AllPatterns() {
				if strings.HasPrefix(n, p.Prefix) && len(n) > len(p.Prefix) && (!wantPOK || len(p.Prefix) > len(wantP.Prefix)) {
					wantP, wantPOK = p, true
				}
			}
			if got, ok := tab.MatchPattern(n); ok != wantPOK || !reflect.DeepEqual(got, wantP) {
				t.Errorf("%s.MatchPattern(%q) = %+v, %v; the list gives %+v, %v", tab.Name, n, got, ok, wantP, wantPOK)
			}
		}
	}
}

// BenchmarkColumn looks up each column of the allocations table (which
// extends predictions, which extends jobs) and one undeclared name, as a
// conform of an allocations table does.
func BenchmarkColumn(b *testing.B) {
	cols := Allocation.AllColumns()
	b.ReportAllocs()
	for b.Loop() {
		for _, c := range cols {
			if _, ok := Allocation.Column(c.Name); !ok {
				b.Fatal(c.Name)
			}
		}
		if _, ok := Allocation.Column("gpu"); ok {
			b.Fatal("gpu")
		}
	}
}

// BenchmarkMatchPattern matches a cluster's resource column names.
func BenchmarkMatchPattern(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		for _, n := range []string{"gpu", "cpu", "mem", "node"} {
			Cluster.MatchPattern(n)
		}
	}
}
