package datasets

import (
	"bytes"
	"cmp"
	"encoding/csv"
	"fmt"
	"io/fs"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"
	"unsafe"
)

// PolluxApps are the applications whose profiles Pollux's simulator ships
// (petuum/adaptdl, branch osdi21-artifact, simulator/traces), embedded in
// data/pollux/<app>/.
var PolluxApps = []string{"bert", "cifar10", "deepspeech2", "imagenet", "ncf", "yolov3"}

// PolluxEpochs is how many epochs a job of each application trains in
// Pollux's simulator: its completion epoch is this count minus one (no
// target metric), and a job completes when its epoch count exceeds it
// (simulator.py, Job.step), after this many epochs.
var PolluxEpochs = map[string]int{"bert": 2, "cifar10": 100, "ncf": 10, "imagenet": 90, "deepspeech2": 80, "yolov3": 50}

// PolluxMaxLocalBatch is where Pollux's simulator sets an application's
// largest per-GPU batch by hand (applications.py: yolov3 8); the others
// take the largest in placements.csv.
var PolluxMaxLocalBatch = map[string]float64{"yolov3": 8}

// PolluxDepartures are modelling choices of Pollux's simulator to depart
// from, one by one, to measure what each is worth (benchmarks/pollux.md).
// The zero value follows Pollux's simulator.
type PolluxDepartures struct {
	// EpochsMinusOne trains PolluxEpochs - 1 epochs rather than
	// PolluxEpochs.
	EpochsMinusOne bool
	// IterationColumn counts a job's steps by validation-<batch>.csv's
	// iteration column (interpolated between batches) rather than as
	// Pollux's simulator does, its progress column over the statistical
	// gain at the job's batch (see PolluxProfile.Steps).
	IterationColumn bool
	// NoSingleGPUAccumulation runs a 1-GPU job's batch in one step when it
	// fits rather than in two accumulation steps at least, as Pollux's
	// simulator does for a batch above the smallest profiled one
	// (Job.update_local_bsz).
	NoSingleGPUAccumulation bool
	// MaxLocalFromScalability takes the largest per-GPU batch that runs
	// without accumulation as the smaller of placements.csv's and
	// scalability.csv's largest (ncf 5803 rather than 32768) rather than
	// placements.csv's and PolluxMaxLocalBatch.
	MaxLocalFromScalability bool
	// NoNCFCap lets Optimus give an ncf job batch_size / the smallest
	// profiled per-GPU batch GPUs, as any other application, rather than
	// Pollux's simulator's 1 (PolluxReplicaCap).
	NoNCFCap bool
	// UnprofiledNearest gives a placement that placements.csv lacks the
	// steps of the nearest profiled (nodes, replicas) (least squared
	// distance; fewer nodes, then fewer replicas, on a tie) rather than
	// interpolating between profiled ones: how much the interpolation of
	// unprofiled placements matters.
	UnprofiledNearest bool
}

// PolluxStep is one profiled step: per-GPU batch, step and synchronisation
// time in seconds.
type PolluxStep struct {
	LocalBatch, StepTime, SyncTime float64
}

// PolluxProfile is one application's throughput and convergence profile.
type PolluxProfile struct {
	App string
	// Placements maps a placement (GPUs per node, rotated to its
	// lexicographically smallest form, as digits: "22") to its steps,
	// sorted by local batch.
	Placements map[string][]PolluxStep
	// Groups are the steps by (nodes, replicas): the placements' mean per
	// local batch and scalability.csv's rows, sorted by nodes, replicas,
	// local batch.
	Groups []PolluxGroup
	// Validation holds, per global batch, the cumulative iterations after
	// each epoch (validation-<batch>.csv's iteration column).
	Validation map[int][]float64
	// Stats holds, per global batch, each epoch's progress (cumulative),
	// grad_sqr and grad_var columns of validation-<batch>.csv.
	Stats map[int][]PolluxEpochStats
	// Departures are the modelling choices in which this profile departs
	// from Pollux's simulator (none by default).
	Departures PolluxDepartures
	Batches    []int // the profiled global batches, ascending
	nodeCounts []int // the distinct Nodes of Groups, ascending

	// MinLocal is the smallest profiled per-GPU batch (placements.csv),
	// MaxLocal the largest one a step runs at without gradient
	// accumulation: the largest in placements.csv, or PolluxMaxLocalBatch
	// (yolov3: 8), as Pollux's simulator splits batches.
	MinLocal, MaxLocal float64
	// maxLocalScal is the largest per-GPU batch of scalability.csv.
	maxLocalScal float64
}

// PolluxEpochStats is one epoch's row of validation-<batch>.csv: the
// cumulative progress after it (examples scaled by their statistical
// efficiency, in steps of the smallest profiled batch), and the gradient's
// squared norm and variance during it.
type PolluxEpochStats struct {
	Progress, GradSqr, GradVar float64
}

// PolluxGroup is the profiled steps of one (nodes, replicas).
type PolluxGroup struct {
	Nodes, Replicas int
	Steps           []PolluxStep
}

// PolluxProfiles reads the embedded profiles of every application.
func PolluxProfiles() (map[string]*PolluxProfile, error) {
	out := map[string]*PolluxProfile{}
	for _, app := range PolluxApps {
		p, err := ReadPolluxProfile(polluxFS, "data/pollux", app)
		if err != nil {
			return nil, err
		}
		out[app] = p
	}
	return out, nil
}

// ReadPolluxProfile reads <root>/<app>/placements.csv, scalability.csv and
// validation-<batch>.csv. Errors name the file, column and row.
func ReadPolluxProfile(fsys fs.FS, root, app string) (*PolluxProfile, error) {
	dir := path.Join(root, app)
	p := &PolluxProfile{App: app, Placements: map[string][]PolluxStep{}, Validation: map[int][]float64{},
		Stats: map[int][]PolluxEpochStats{}, MinLocal: math.Inf(1), MaxLocal: math.Inf(-1)}
	type key struct{ n, r int }
	sums := map[key]map[float64][3]float64{} // local batch -> step, sync, count
	add := func(k key, s PolluxStep) {
		if sums[k] == nil {
			sums[k] = map[float64][3]float64{}
		}
		v := sums[k][s.LocalBatch]
		sums[k][s.LocalBatch] = [3]float64{v[0] + s.StepTime, v[1] + s.SyncTime, v[2] + 1}
	}
	file := path.Join(dir, "placements.csv")
	var perNodeBuf [32]int
	var idBuf [64]byte
	err := readPolluxCSV(fsys, file, []string{"placement", "local_bsz", "step_time", "sync_time"}, func(row int, rec []string, num func(col int) (float64, error)) error {
		perNode, err := appendPlacement(perNodeBuf[:0], rec[0])
		if err != nil {
			return fmt.Errorf("%s: column %q, row %d: %v", file, "placement", row, err)
		}
		var s PolluxStep
		for c, dst := range []*float64{&s.LocalBatch, &s.StepTime, &s.SyncTime} {
			if *dst, err = num(c + 1); err != nil {
				return err
			}
		}
		idb := appendPlacementID(idBuf[:0], perNode)
		if steps, ok := p.Placements[string(idb)]; ok {
			p.Placements[string(idb)] = append(steps, s)
		} else {
			p.Placements[string(idb)] = []PolluxStep{s}
		}
		p.MinLocal, p.MaxLocal = math.Min(p.MinLocal, s.LocalBatch), math.Max(p.MaxLocal, s.LocalBatch)
		add(key{len(perNode), sum(perNode)}, s)
		return nil
	})
	if err != nil {
		return nil, err
	}
	file = path.Join(dir, "scalability.csv")
	scalMax := math.Inf(-1)
	err = readPolluxCSV(fsys, file, []string{"num_nodes", "num_replicas", "local_bsz", "step_time", "sync_time"}, func(row int, rec []string, num func(col int) (float64, error)) error {
		var v [5]float64
		for c := range v {
			x, err := num(c)
			if err != nil {
				return err
			}
			v[c] = x
		}
		n, r := int(v[0]), int(v[1])
		if float64(n) != v[0] || float64(r) != v[1] || n < 1 || r < n {
			return fmt.Errorf("%s: row %d: num_nodes %g and num_replicas %g must be whole, with 1 <= num_nodes <= num_replicas", file, row, v[0], v[1])
		}
		add(key{n, r}, PolluxStep{LocalBatch: v[2], StepTime: v[3], SyncTime: v[4]})
		scalMax = math.Max(scalMax, v[2])
		return nil
	})
	if err != nil {
		return nil, err
	}
	p.maxLocalScal = scalMax
	if m, ok := PolluxMaxLocalBatch[app]; ok {
		p.MaxLocal = m
	}
	for id, steps := range p.Placements {
		slices.SortFunc(steps, func(a, b PolluxStep) int { return cmp.Compare(a.LocalBatch, b.LocalBatch) })
		p.Placements[id] = steps
	}
	for k, byLocal := range sums {
		g := PolluxGroup{Nodes: k.n, Replicas: k.r}
		for lb, v := range byLocal {
			g.Steps = append(g.Steps, PolluxStep{LocalBatch: lb, StepTime: v[0] / v[2], SyncTime: v[1] / v[2]})
		}
		slices.SortFunc(g.Steps, func(a, b PolluxStep) int { return cmp.Compare(a.LocalBatch, b.LocalBatch) })
		p.Groups = append(p.Groups, g)
	}
	slices.SortFunc(p.Groups, func(a, b PolluxGroup) int {
		return cmp.Or(cmp.Compare(a.Nodes, b.Nodes), cmp.Compare(a.Replicas, b.Replicas))
	})
	for _, g := range p.Groups {
		if n := len(p.nodeCounts); n == 0 || p.nodeCounts[n-1] != g.Nodes {
			p.nodeCounts = append(p.nodeCounts, g.Nodes)
		}
	}
	if len(p.Placements) == 0 {
		return nil, fmt.Errorf("%s: no rows", path.Join(dir, "placements.csv"))
	}
	files, err := fs.Glob(fsys, path.Join(dir, "validation-*.csv"))
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		batch, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(path.Base(f), "validation-"), ".csv"))
		if err != nil || batch < 1 {
			return nil, fmt.Errorf("%s: the name must be validation-<global batch>.csv", f)
		}
		var its []float64
		var stats []PolluxEpochStats
		err = readPolluxCSV(fsys, f, []string{"progress", "iteration", "metric", "grad_sqr", "grad_var"}, func(row int, rec []string, num func(col int) (float64, error)) error {
			var v [5]float64
			for c := range v {
				if c == 2 {
					continue // the metric: not needed here
				}
				x, err := num(c)
				if err != nil {
					return err
				}
				v[c] = x
			}
			it := v[1]
			if n := len(its); n > 0 && it < its[n-1] {
				return fmt.Errorf("%s: column %q, row %d: %g iterations, fewer than the epoch before (%g)", f, "iteration", row, it, its[n-1])
			}
			if n := len(stats); n > 0 && v[0] < stats[n-1].Progress {
				return fmt.Errorf("%s: column %q, row %d: progress %g, less than the epoch before (%g)", f, "progress", row, v[0], stats[n-1].Progress)
			}
			its = append(its, it)
			stats = append(stats, PolluxEpochStats{Progress: v[0], GradSqr: v[3], GradVar: v[4]})
			return nil
		})
		if err != nil {
			return nil, err
		}
		p.Validation[batch] = its
		p.Stats[batch] = stats
		p.Batches = append(p.Batches, batch)
	}
	if len(p.Batches) == 0 {
		return nil, fmt.Errorf("%s: no validation-<global batch>.csv", dir)
	}
	slices.Sort(p.Batches)
	return p, nil
}

// readPolluxCSV reads a CSV file whose header starts with the given
// columns, calling row for each record (rows count from 1) with a number
// parser that names file, column and row in its error. rec is only valid
// during the call (it is reused for the next record).
func readPolluxCSV(fsys fs.FS, file string, cols []string, row func(r int, rec []string, num func(col int) (float64, error)) error) error {
	data, err := fs.ReadFile(fsys, file)
	if err != nil {
		return err
	}
	var rec []string
	r := 0
	num := func(c int) (float64, error) {
		x, err := strconv.ParseFloat(strings.TrimSpace(rec[c]), 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) || x < 0 {
			return 0, fmt.Errorf("%s: column %q, row %d: %q is not a number >= 0", file, cols[c], r, rec[c])
		}
		return x, nil
	}
	each := func(i int, fields []string) error {
		if i == 0 {
			if len(fields) < len(cols) || !slices.Equal(fields[:len(cols)], cols) {
				return fmt.Errorf("%s: the header must start with %s", file, strings.Join(cols, ","))
			}
			return nil
		}
		rec, r = fields, i
		if len(rec) < len(cols) {
			return fmt.Errorf("%s: row %d: %d fields, want at least %d", file, r, len(rec), len(cols))
		}
		return row(r, rec, num)
	}
	n, err := eachCSVRecord(file, data, each)
	if err != nil {
		return err
	}
	if n == 0 {
		return fmt.Errorf("%s: the header must start with %s", file, strings.Join(cols, ","))
	}
	return nil
}

// eachCSVRecord calls each with every record of data and its index (the
// header 0) and returns how many there were. Data without quotes or
// carriage returns (the embedded profiles) is split on newlines and commas
// as encoding/csv would read it (empty lines skipped), into substrings of
// data itself (not copied: the caller must not change data afterwards) and
// one slice reused from record to record; anything else is encoding/csv's
// to read.
func eachCSVRecord(file string, data []byte, each func(int, []string) error) (int, error) {
	if bytes.IndexByte(data, '"') >= 0 || bytes.IndexByte(data, '\r') >= 0 {
		cr := csv.NewReader(bytes.NewReader(data))
		cr.FieldsPerRecord = -1
		recs, err := cr.ReadAll()
		if err != nil {
			return 0, fmt.Errorf("%s: %w", file, err)
		}
		for i, rec := range recs {
			if err := each(i, rec); err != nil {
				return 0, err
			}
		}
		return len(recs), nil
	}
	text := unsafe.String(unsafe.SliceData(data), len(data))
	var fields []string
	i := 0
	for len(text) > 0 {
		line, rest, _ := strings.Cut(text, "\n")
		text = rest
		if line == "" {
			continue
		}
		fields = fields[:0]
		for {
			f, more, found := strings.Cut(line, ",")
			fields = append(fields, f)
			if !found {
				break
			}
			line = more
		}
		if err := each(i, fields); err != nil {
			return 0, err
		}
		i++
	}
	return i, nil
}

// parsePlacement reads a placement's digits (GPUs per node).
func parsePlacement(s string) ([]int, error) {
	return appendPlacement(nil, s)
}

// appendPlacement is parsePlacement appending to out.
func appendPlacement(out []int, s string) ([]int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, fmt.Errorf("empty placement")
	}
	for _, c := range s {
		if c < '1' || c > '9' {
			return nil, fmt.Errorf("placement %q: each character must be a digit 1-9 (GPUs on one node)", s)
		}
		out = append(out, int(c-'0'))
	}
	return out, nil
}

// placementID is a placement's lexicographically smallest rotation with
// the empty nodes left out, as digits (Pollux's normalisation; more than
// 9 GPUs on a node has no profile and is written with a separator).
func placementID(perNode []int) string {
	var buf [64]byte
	return string(appendPlacementID(buf[:0], perNode))
}

// appendPlacementID appends placementID's digits to dst: with a buffer on
// the caller's stack, a map lookup by string(...) of it allocates nothing.
func appendPlacementID(dst []byte, perNode []int) []byte {
	var buf [32]int
	p := buf[:0]
	for _, x := range perNode {
		if x > 0 {
			p = append(p, x)
		}
	}
	// The smallest rotation: compare rotations in place.
	start := 0
	for i := 1; i < len(p); i++ {
		for k := range len(p) {
			a, b := p[(i+k)%len(p)], p[(start+k)%len(p)]
			if a != b {
				if a < b {
					start = i
				}
				break
			}
		}
	}
	for k := range len(p) {
		x := p[(start+k)%len(p)]
		if x > 9 {
			dst = append(dst, '/')
			dst = strconv.AppendInt(dst, int64(x), 10)
			dst = append(dst, '/')
		} else {
			dst = append(dst, byte('0'+x))
		}
	}
	return dst
}

func sum(xs []int) int {
	s := 0
	for _, x := range xs {
		s += x
	}
	return s
}

// interpSteps interpolates step and sync time linearly over the local
// batch, clamped to the profiled range.
func interpSteps(steps []PolluxStep, local float64) (step, sync float64) {
	if len(steps) == 0 {
		return math.NaN(), math.NaN()
	}
	if local <= steps[0].LocalBatch {
		return steps[0].StepTime, steps[0].SyncTime
	}
	last := steps[len(steps)-1]
	if local >= last.LocalBatch {
		return last.StepTime, last.SyncTime
	}
	i, _ := slices.BinarySearchFunc(steps, local, func(s PolluxStep, x float64) int { return cmp.Compare(s.LocalBatch, x) })
	a, b := steps[i-1], steps[i]
	f := (local - a.LocalBatch) / (b.LocalBatch - a.LocalBatch)
	return a.StepTime + f*(b.StepTime-a.StepTime), a.SyncTime + f*(b.SyncTime-a.SyncTime)
}

// StepTime is the time of one optimizer step, in seconds, of a job whose
// GPUs lie perNode (GPUs on each node; zeros ignored) with a global batch
// of batch examples, as Pollux's simulator computes it: the placement's
// own profile interpolated over the per-GPU batch when it was profiled,
// else an interpolation over (nodes, replicas, per-GPU batch) of the
// profiled groups (placements.csv averaged per (nodes, replicas) and
// scalability.csv). A per-GPU batch (rounded up to whole examples) above
// MaxLocal is split into gradient-accumulation steps, each adding
// step_time - sync_time; so is one GPU's batch above the smallest
// profiled global batch, in two steps at least (as Pollux's simulator
// does). NaN for no GPU.
//
// Pollux interpolates the second case over a Delaunay triangulation of
// the points (scipy's LinearNDInterpolator); here it is linear over replicas among
// the groups of the same node count, then linear over node counts between
// the two nearest profiled ones (replicas clamped to each one's range):
// the same values at profiled points, not between them.
func (p *PolluxProfile) StepTime(perNode []int, batch float64) float64 {
	w := sum(perNode)
	if w < 1 {
		return math.NaN()
	}
	maxLocal := p.MaxLocal
	if p.Departures.MaxLocalFromScalability && p.maxLocalScal > 0 {
		maxLocal = math.Min(maxLocal, p.maxLocalScal)
	}
	local := math.Ceil(batch/float64(w) - 1e-8)
	accum := 1.0
	if local > maxLocal {
		accum = math.Ceil(local/maxLocal - 1e-8)
	}
	if w == 1 && batch > float64(p.Batches[0]) && !p.Departures.NoSingleGPUAccumulation {
		accum = max(accum, 2)
	}
	local = math.Ceil(local/accum - 1e-8)
	step, sync := p.Throughput(perNode, local)
	return step + (accum-1)*(step-sync)
}

// Throughput is the step and synchronisation time, in seconds, of one step
// of a micro-batch of atomic examples on each GPU of a placement (GPUs per
// node, zeros ignored), without accumulation: placements.csv's profile of
// the placement interpolated over the micro-batch, else the interpolation
// of the profiled groups StepTime describes (Pollux's get_throughput).
func (p *PolluxProfile) Throughput(perNode []int, atomic float64) (step, sync float64) {
	var id [64]byte
	if steps, ok := p.Placements[string(appendPlacementID(id[:0], perNode))]; ok {
		return interpSteps(steps, atomic)
	}
	nodes := 0
	for _, x := range perNode {
		if x > 0 {
			nodes++
		}
	}
	if p.Departures.UnprofiledNearest {
		return p.nearestSteps(nodes, sum(perNode), atomic)
	}
	return p.groupSteps(nodes, sum(perNode), atomic)
}

// nearestSteps are the steps of the profiled group nearest to (nodes,
// replicas), interpolated over the local batch.
func (p *PolluxProfile) nearestSteps(nodes, replicas int, local float64) (step, sync float64) {
	best, bestD := 0, math.MaxInt
	for i, g := range p.Groups { // sorted by nodes, replicas: the first of equals wins
		dn, dr := g.Nodes-nodes, g.Replicas-replicas
		if d := dn*dn + dr*dr; d < bestD {
			best, bestD = i, d
		}
	}
	return interpSteps(p.Groups[best].Steps, local)
}

// groupSteps interpolates the groups over replicas within a node count,
// then over node counts.
func (p *PolluxProfile) groupSteps(nodes, replicas int, local float64) (step, sync float64) {
	counts := p.nodeCounts
	at := func(n int) (float64, float64) {
		lo, _ := slices.BinarySearchFunc(p.Groups, n, func(g PolluxGroup, n int) int { return cmp.Compare(g.Nodes, n) })
		hi := lo
		for hi < len(p.Groups) && p.Groups[hi].Nodes == n {
			hi++
		}
		gs := p.Groups[lo:hi]
		if replicas <= gs[0].Replicas {
			return interpSteps(gs[0].Steps, local)
		}
		for k := 1; k < len(gs); k++ {
			if replicas <= gs[k].Replicas {
				s0, y0 := interpSteps(gs[k-1].Steps, local)
				s1, y1 := interpSteps(gs[k].Steps, local)
				f := float64(replicas-gs[k-1].Replicas) / float64(gs[k].Replicas-gs[k-1].Replicas)
				return s0 + f*(s1-s0), y0 + f*(y1-y0)
			}
		}
		return interpSteps(gs[len(gs)-1].Steps, local)
	}
	i, found := slices.BinarySearch(counts, nodes)
	switch {
	case found:
		return at(nodes)
	case i == 0:
		return at(counts[0])
	case i == len(counts):
		return at(counts[len(counts)-1])
	}
	s0, y0 := at(counts[i-1])
	s1, y1 := at(counts[i])
	f := float64(nodes-counts[i-1]) / float64(counts[i]-counts[i-1])
	return s0 + f*(s1-s0), y0 + f*(y1-y0)
}

// Iterations is the cumulative optimizer steps after epochs epochs at a
// global batch, interpolated linearly between the two nearest profiled
// batches (validation-<batch>.csv's iteration column, as Pollux's
// simulator reads it); the last profiled epoch's figure is extended at its
// per-epoch rate. An error when batch is outside the profiled batches.
func (p *PolluxProfile) Iterations(batch float64, epochs int) (float64, error) {
	lo, hi := p.Batches[0], p.Batches[len(p.Batches)-1]
	if batch < float64(lo) || batch > float64(hi) {
		return 0, fmt.Errorf("batch size %g is outside the profiled range %d-%d of %s", batch, lo, hi, p.App)
	}
	at := func(b int) float64 {
		its := p.Validation[b]
		if epochs <= 0 || len(its) == 0 {
			return 0
		}
		if epochs <= len(its) {
			return its[epochs-1]
		}
		return its[len(its)-1] * float64(epochs) / float64(len(its))
	}
	i, found := slices.BinarySearch(p.Batches, int(batch))
	if found && float64(p.Batches[i]) == batch {
		return at(p.Batches[i]), nil
	}
	a, b := p.Batches[i-1], p.Batches[i]
	f := (batch - float64(a)) / float64(b-a)
	return at(a) + f*(at(b)-at(a)), nil
}

// Steps is the optimizer steps a job of a global batch trains in its first
// epochs epochs, as Pollux's simulator counts them (Job.step): epoch k ends
// when the job's progress reaches the least progress any profiled batch had
// made after epoch k (get_progress), and each step at batch B adds the
// statistical gain (var + sqr) / (var/s + sqr), s = B / the smallest
// profiled batch, of the gradient's squared norm sqr and variance var
// during epoch k, interpolated linearly between the two nearest profiled
// batches (get_grad_stats). Epochs beyond the profiled ones repeat the
// last one's steps. An error when batch is outside the profiled batches.
func (p *PolluxProfile) Steps(batch float64, epochs int) (float64, error) {
	lo, hi := p.Batches[0], p.Batches[len(p.Batches)-1]
	if batch < float64(lo) || batch > float64(hi) {
		return 0, fmt.Errorf("batch size %g is outside the profiled range %d-%d of %s", batch, lo, hi, p.App)
	}
	rows := math.MaxInt
	for _, b := range p.Batches {
		rows = min(rows, len(p.Stats[b]))
	}
	if rows == 0 || rows == math.MaxInt {
		return 0, fmt.Errorf("%s: no validation rows", p.App)
	}
	i, found := slices.BinarySearch(p.Batches, int(batch))
	a, b, f := p.Batches[min(i, len(p.Batches)-1)], p.Batches[min(i, len(p.Batches)-1)], 0.0
	if !(found && float64(p.Batches[i]) == batch) {
		a, b = p.Batches[i-1], p.Batches[i]
		f = (batch - float64(a)) / float64(b-a)
	}
	scale := batch / float64(lo)
	total, prev, last := 0.0, 0.0, 0.0
	for k := range epochs {
		if k >= rows {
			total += last
			continue
		}
		progress := math.Inf(1)
		for _, bb := range p.Batches {
			progress = math.Min(progress, p.Stats[bb][k].Progress)
		}
		sa, sb := p.Stats[a][k], p.Stats[b][k]
		sqr := sa.GradSqr + f*(sb.GradSqr-sa.GradSqr)
		v := sa.GradVar + f*(sb.GradVar-sa.GradVar)
		gain := 1.0
		if d := v/scale + sqr; d > 0 {
			gain = (v + sqr) / d
		}
		last = (progress - prev) / gain
		total += last
		prev = progress
	}
	return total, nil
}

// Profiled says whether placements.csv profiled a placement (GPUs per node,
// zeros ignored, any rotation): StepTime interpolates between profiled
// placements for one it did not.
func (p *PolluxProfile) Profiled(perNode []int) bool {
	var id [64]byte
	_, ok := p.Placements[string(appendPlacementID(id[:0], perNode))]
	return ok
}

// OptimusRemaining returns the remaining steps Pollux's Optimus+Oracle
// plans a job of a global batch and epochs epochs with, given the steps it
// has trained (optimus.py): validation-<batch>.csv's iteration column at
// the completion epoch less that at the job's epoch (whole epochs done),
// interpolated between batches, as get_iteration reads them (row e: after
// e + 1 epochs); 1 once the job is in its last epoch. Its epochs end where
// Steps says.
func (p *PolluxProfile) OptimusRemaining(batch float64, epochs int) func(progress float64) float64 {
	ends := make([]float64, epochs) // ends[e-1]: steps after e epochs
	its := make([]float64, epochs+1)
	steps := p.Steps
	if p.Departures.IterationColumn {
		steps = p.Iterations // the job's steps, as ReadPolluxWorkload counts them
	}
	for e := 1; e <= epochs; e++ {
		ends[e-1], _ = steps(batch, e)
	}
	for e := 1; e <= epochs; e++ {
		its[e], _ = p.Iterations(batch, e)
	}
	completion := epochs - 1
	return func(progress float64) float64 {
		done, _ := slices.BinarySearch(ends, progress) // epochs whose end is before progress
		for done < len(ends) && ends[done] <= progress {
			done++
		}
		if completion <= done {
			return 1
		}
		return its[completion+1] - its[done+1]
	}
}
