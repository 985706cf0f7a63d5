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
