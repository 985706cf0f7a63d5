package metrics

import "sort"

// column holds a series' points as three columns (24 bytes a point, not a
// Sample's 48) while they are in the order Latest keeps as it is: steps
// strictly increasing, wall times never decreasing, every step resolved
// (Step >= 0, no epoch or batch). That is how a job that never restarted
// logs, the usual case, and it lets Reduce build the kept rows without a
// pass over Samples. The first point out of that order turns the column
// back into Samples (spill), and the general path decides as before.
type column struct {
	steps []int64
	walls []float64
	vals  []float64
	// files[k] is the file of points from starts[k] on.
	starts  []int
	files   []int32
	nanWall bool // some point has no time
	// The last point's step, wall time and file, when there is one.
	lastStep int64
	lastWall float64
	lastFile int32
}

func (c *column) len() int { return len(c.steps) }

func (c *column) reset() {
	c.steps, c.walls, c.vals = c.steps[:0], c.walls[:0], c.vals[:0]
	c.starts, c.files = c.starts[:0], c.files[:0]
	c.nanWall = false
}

// add appends p (of file fi) and reports true, or reports false, adding
// nothing, when p would break the column's order.
func (c *column) add(p Point, fi int32) bool {
	if p.Step < 0 || p.Epoch != 0 || p.Batch != 0 {
		return false
	}
	n := len(c.steps)
	if n > 0 && (p.Step <= c.lastStep || p.Wall < c.lastWall) {
		return false
	}
	if n == 0 || c.lastFile != fi {
		c.starts = append(c.starts, n)
		c.files = append(c.files, fi)
	}
	if p.Wall != p.Wall {
		c.nanWall = true
	}
	c.lastStep, c.lastWall, c.lastFile = p.Step, p.Wall, fi
	c.steps = append(c.steps, p.Step)
	c.walls = append(c.walls, p.Wall)
	c.vals = append(c.vals, p.Value)
	return true
}

// fileOf is the file of point i.
func (c *column) fileOf(i int) int32 {
	if len(c.files) == 1 {
		return c.files[0]
	}
	k := sort.Search(len(c.starts), func(k int) bool { return c.starts[k] > i }) - 1
	return c.files[k]
}

func (c *column) at(i int) Sample {
	return Sample{Point: Point{Step: c.steps[i], Wall: c.walls[i], Value: c.vals[i]}, file: c.fileOf(i)}
}

// spill appends the column's points to dst as Samples.
func (c *column) spill(dst []Sample) []Sample {
	for k, fi := range c.files {
		end := len(c.steps)
		if k+1 < len(c.starts) {
			end = c.starts[k+1]
		}
		for i := c.starts[k]; i < end; i++ {
			dst = append(dst, Sample{Point: Point{Step: c.steps[i], Wall: c.walls[i], Value: c.vals[i]}, file: fi})
		}
	}
	return dst
}

// view is a series' points, as a column or as Samples.
type view struct {
	s []Sample
	c *column
}

func (v view) len() int {
	if v.c != nil {
		return v.c.len()
	}
	return len(v.s)
}

func (v view) at(i int) Sample {
	if v.c != nil {
		return v.c.at(i)
	}
	return v.s[i]
}

// slice is points lo to hi of v.
func (v view) slice(lo, hi int) view {
	if v.c == nil {
		return view{s: v.s[lo:hi]}
	}
	c := *v.c
	c.steps, c.walls, c.vals = c.steps[lo:hi], c.walls[lo:hi], c.vals[lo:hi]
	// Only the file of point lo matters to the callers of slice
	// (speeds' runs lie within one file).
	c.starts, c.files = []int{0}, []int32{v.c.fileOf(lo)}
	return view{c: &c}
}

func (v view) step(i int) int64 {
	if v.c != nil {
		return v.c.steps[i]
	}
	return v.s[i].Step
}

func (v view) wall(i int) float64 {
	if v.c != nil {
		return v.c.walls[i]
	}
	return v.s[i].Wall
}

// columnsOff puts every series on the general path (TestColumnsSameResults
// compares the two).
var columnsOff bool
