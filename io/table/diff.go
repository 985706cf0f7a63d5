package table

import (
	"fmt"
	"maps"
	"math"

	"github.com/optimus-sched/optimus/io/schema"
)

// Diff describes the first difference between two tables (schema, metadata,
// columns, types, nullability, values), or returns "" when they hold the
// same content. NaN equals NaN; a null equals only a null. Provenance
// metadata (what made a table) is not content.
func Diff(a, b *Table) string {
	if a.Name != b.Name || a.Version != b.Version {
		return fmt.Sprintf("schema %s v%d vs %s v%d", a.Name, a.Version, b.Name, b.Version)
	}
	if ma, mb := content(a.Meta), content(b.Meta); !maps.Equal(ma, mb) && (len(ma) > 0 || len(mb) > 0) {
		return fmt.Sprintf("metadata %v vs %v", ma, mb)
	}
	if a.rows != b.rows {
		return fmt.Sprintf("%d rows vs %d", a.rows, b.rows)
	}
	if len(a.fields) != len(b.fields) {
		return fmt.Sprintf("columns %v vs %v", a.ColumnNames(), b.ColumnNames())
	}
	for i, fa := range a.fields {
		fb := b.fields[i]
		if fa.Name != fb.Name || fa.Type.ID() != fb.Type.ID() || fa.Nullable != fb.Nullable {
			return fmt.Sprintf("column %d: %s %s nullable=%v vs %s %s nullable=%v", i, fa.Name, fa.Type, fa.Nullable, fb.Name, fb.Type, fb.Nullable)
		}
		ca, cb := a.cols[i], b.cols[i]
		for r := 0; r < a.rows; r++ {
			if ca.IsNull(r) != cb.IsNull(r) {
				return fmt.Sprintf("column %q row %d: null %v vs %v", fa.Name, r+1, ca.IsNull(r), cb.IsNull(r))
			}
			if ca.IsNull(r) {
				continue
			}
			va, vb := ca.GetOneForMarshal(r), cb.GetOneForMarshal(r)
			if fa, ok := va.(float64); ok {
				fb := vb.(float64)
				if fa == fb || math.IsNaN(fa) && math.IsNaN(fb) {
					continue
				}
			}
			if va != vb {
				return fmt.Sprintf("column %q row %d: %v vs %v", fa.Name, r+1, va, vb)
			}
		}
	}
	return ""
}

// content is a table's metadata without its provenance.
func content(meta map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range meta {
		if !schema.IsProvenance(k) {
			out[k] = v
		}
	}
	return out
}
