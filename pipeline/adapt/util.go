package adapt

import (
	"math"

	"github.com/optimus-sched/optimus/io/table"
	"github.com/optimus-sched/optimus/layout"
)

var nan = math.NaN()

// identity returns the row numbers 0..n-1.
func identity(n int) []int {
	rows := make([]int, n)
	for i := range rows {
		rows[i] = i
	}
	return rows
}

// checkTaskCounts rejects, naming the column and row, a task count of a
// job beyond layout.MaxJobTasks.
func checkTaskCounts(t *table.Table, cols ...string) error {
	for _, col := range cols {
		if !t.Has(col) {
			continue
		}
		for row, v := range t.Int64s(col) {
			if v > layout.MaxJobTasks {
				return t.Errorf(col, row, "%d tasks: a job has at most %d of a role", v, layout.MaxJobTasks)
			}
		}
	}
	return nil
}

// values returns a float column that must have a value on every row
// (capacities, demands), or an error naming its first empty row.
func values(t *table.Table, col, what string) ([]float64, error) {
	if t.NullCount(col) > 0 {
		ok := t.Validity(col)
		for row := range t.NumRows() {
			if !ok.IsValid(row) {
				return nil, t.Errorf(col, row, "no value: %s", what)
			}
		}
	}
	return t.Float64Values(col), nil
}
