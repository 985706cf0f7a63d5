package goodput

// Speedup is a job's goodput on (nodes, replicas) relative to a base
// goodput, with the batch chosen by Function.Optimize within Limits, as
// Pollux's scheduler compares allocations (speedup.py): remembered per
// (nodes, replicas), the base set by the caller (Pollux: the goodput at the
// job's fair share of the cluster).
type Speedup struct {
	Fn     *Function // nil: no model yet, the speedup is replicas / Base
	Limits Limits
	Base   float64
	memo   map[[2]int]float64
	dense  []float64 // by nodes·(maxDense+1) + replicas, -1 unknown
}

// maxDense bounds the (nodes, replicas) remembered in an array rather
// than a map.
const maxDense = 64

// NewSpeedup returns the speedup of fn within lim against the goodput of
// (baseNodes, baseReplicas); without a model (fn nil) replicas /
// baseReplicas.
func NewSpeedup(fn *Function, lim Limits, baseNodes, baseReplicas int) *Speedup {
	s := &Speedup{Fn: fn, Limits: lim, Base: float64(baseReplicas)}
	if fn != nil {
		s.Base = fn.Optimize(baseNodes, baseReplicas, lim).Goodput
	}
	return s
}

// At is the speedup on replicas over nodes (0 for no replica).
func (s *Speedup) At(nodes, replicas int) float64 {
	if replicas <= 0 {
		return 0
	}
	if s.Fn == nil {
		return float64(replicas) / s.Base
	}
	if nodes <= maxDense && replicas <= maxDense {
		if s.dense == nil {
			s.dense = make([]float64, (maxDense+1)*(maxDense+1))
			for i := range s.dense {
				s.dense[i] = -1
			}
		}
		i := nodes*(maxDense+1) + replicas
		if v := s.dense[i]; v >= 0 {
			return v
		}
		v := s.Fn.Optimize(nodes, replicas, s.Limits).Goodput / s.Base
		s.dense[i] = v
		return v
	}
	k := [2]int{nodes, replicas}
	if v, ok := s.memo[k]; ok {
		return v
	}
	if s.memo == nil {
		s.memo = map[[2]int]float64{}
	}
	v := s.Fn.Optimize(nodes, replicas, s.Limits).Goodput / s.Base
	s.memo[k] = v
	return v
}
