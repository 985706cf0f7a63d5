package adapt

import "math"

var nan = math.NaN()

// identity returns the row numbers 0..n-1.
func identity(n int) []int {
	rows := make([]int, n)
	for i := range rows {
		rows[i] = i
	}
	return rows
}
