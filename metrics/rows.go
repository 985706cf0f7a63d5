package metrics

import "math"

// Loss is a job's metric points, the loss table's rows, in as few bytes as
// keep every one exact. A job's whole history is held until the tables are
// written, and on a virtual machine first touching memory costs about as
// much as reading the records (benchmarks/metrics.md), so a row's size is
// what keeping it costs. Steps in arithmetic progression (a job logging
// every k steps, the usual case) take no memory, others 4 bytes as offsets
// from the first when they span less than 2^32 steps, else 8; values take
// 4 bytes when every one is a float32 bit for bit (TensorBoard's
// simple_value is one), else 8. The zero Loss has no points.
type Loss struct {
	n             int
	first, stride int64 // step i is first + i*stride when off and steps are nil
	off           []uint32
	steps         []int64
	f32           []float32
	f64           []float64
}

// Len is the number of points.
func (l *Loss) Len() int { return l.n }

// Bytes is the memory the points take.
func (l *Loss) Bytes() int64 {
	return int64(4*len(l.off) + 8*len(l.steps) + 4*len(l.f32) + 8*len(l.f64))
}

// Step is point i's step.
func (l *Loss) Step(i int) int64 {
	switch {
	case l.off != nil:
		return l.first + int64(l.off[i])
	case l.steps != nil:
		return l.steps[i]
	}
	return l.first + int64(i)*l.stride
}

// Value is point i's value.
func (l *Loss) Value(i int) float64 {
	if l.f32 != nil {
		return float64(l.f32[i])
	}
	return l.f64[i]
}

// At is point i.
func (l *Loss) At(i int) LossPoint { return LossPoint{Step: l.Step(i), Value: l.Value(i)} }

// Points returns the points as LossPoints (a copy).
func (l *Loss) Points() []LossPoint {
	out := make([]LossPoint, l.n)
	for i := range out {
		out[i] = l.At(i)
	}
	return out
}

// AppendSteps appends every point's step to dst.
func (l *Loss) AppendSteps(dst []int64) []int64 {
	switch {
	case l.off != nil:
		for _, o := range l.off {
			dst = append(dst, l.first+int64(o))
		}
	case l.steps != nil:
		dst = append(dst, l.steps...)
	default:
		for i := range l.n {
			dst = append(dst, l.first+int64(i)*l.stride)
		}
	}
	return dst
}

// AppendValues appends every point's value to dst.
func (l *Loss) AppendValues(dst []float64) []float64 {
	if l.f32 != nil {
		for _, v := range l.f32 {
			dst = append(dst, float64(v))
		}
		return dst
	}
	return append(dst, l.f64...)
}

// exactFloat32 reports whether v survives a round trip through float32 bit
// for bit (NaN payloads included).
func exactFloat32(v float64) bool {
	return math.Float64bits(float64(float32(v))) == math.Float64bits(v)
}

// newLoss keeps the points of s (steps increasing, as Latest leaves them)
// and counts the non-finite values.
func newLoss(s []Sample) (Loss, int) {
	l := Loss{n: len(s)}
	if len(s) == 0 {
		return l, 0
	}
	l.first = s[0].Step
	arith, all32, nonFinite := true, true, 0
	inRange := true // every step - first fits a uint32
	if len(s) > 1 {
		l.stride = s[1].Step - s[0].Step
	}
	for i := range s {
		v := s[i].Value
		if !exactFloat32(v) {
			all32 = false
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			nonFinite++
		}
		if i > 0 && s[i].Step-s[i-1].Step != l.stride {
			arith = false
		}
		if d := s[i].Step - l.first; d < 0 || d > math.MaxUint32 {
			inRange = false
		}
	}
	switch {
	case arith:
	case inRange:
		l.off = make([]uint32, len(s))
		for i := range s {
			l.off[i] = uint32(s[i].Step - l.first)
		}
	default:
		l.steps = make([]int64, len(s))
		for i := range s {
			l.steps[i] = s[i].Step
		}
	}
	if all32 {
		l.f32 = make([]float32, len(s))
		for i := range s {
			l.f32[i] = float32(s[i].Value)
		}
	} else {
		l.f64 = make([]float64, len(s))
		for i := range s {
			l.f64[i] = s[i].Value
		}
	}
	return l, nonFinite
}

// newLossColumns is newLoss for points held as columns (steps strictly
// increasing): the same Loss, without a pass over Samples.
func newLossColumns(steps []int64, vals []float64) (Loss, int) {
	n := len(steps)
	l := Loss{n: n}
	if n == 0 {
		return l, 0
	}
	l.first = steps[0]
	arith, inRange := true, true
	if n > 1 {
		l.stride = steps[1] - steps[0]
	}
	for i := 1; i < n; i++ {
		if steps[i]-steps[i-1] != l.stride {
			arith = false
			break
		}
	}
	if !arith {
		// Strictly increasing: the last step is the largest offset.
		if d := steps[n-1] - l.first; d < 0 || d > math.MaxUint32 {
			inRange = false
		}
		if inRange {
			l.off = make([]uint32, n)
			for i, s := range steps {
				l.off[i] = uint32(s - l.first)
			}
		} else {
			l.steps = append([]int64(nil), steps...)
		}
	}
	// One pass: float32s written while every value is one.
	nonFinite := 0
	f32 := make([]float32, n)
	for i, v := range vals {
		if f32 != nil {
			f := float32(v)
			if math.Float64bits(float64(f)) == math.Float64bits(v) {
				f32[i] = f
			} else {
				f32 = nil
			}
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			nonFinite++
		}
	}
	if f32 != nil {
		l.f32 = f32
	} else {
		l.f64 = append([]float64(nil), vals...)
	}
	return l, nonFinite
}
