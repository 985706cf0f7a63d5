package metrics

import (
	"fmt"
	"math"
	"math/rand"
	"reflect"
	"testing"
)

// readBoth reads and reduces a tree with the columns on and off.
func readBoth(t *testing.T, root string, epochSteps int64, o Options) (on, off map[string]*Result) {
	t.Helper()
	on = readReduce(t, root, epochSteps, o)
	columnsOff = true
	defer func() { columnsOff = false }()
	off = readReduce(t, root, epochSteps, o)
	return on, off
}

func sameResults(t *testing.T, what string, on, off map[string]*Result) {
	t.Helper()
	if len(on) != len(off) {
		t.Fatalf("%s: %d jobs with columns, %d without", what, len(on), len(off))
	}
	for job, a := range on {
		b := off[job]
		if b == nil {
			t.Fatalf("%s: job %s only with columns", what, job)
		}
		ap, bp := a.Loss.Points(), b.Loss.Points()
		if len(ap) != len(bp) || !reflect.DeepEqual(fmt.Sprint(ap), fmt.Sprint(bp)) || a.Loss.Bytes() != b.Loss.Bytes() {
			t.Errorf("%s: job %s: loss %d points (%d B) with columns, %d (%d B) without", what, job, len(ap), a.Loss.Bytes(), len(bp), b.Loss.Bytes())
		}
		a2, b2 := *a, *b
		a2.Loss, b2.Loss = Loss{}, Loss{}
		if !reflect.DeepEqual(fmt.Sprintf("%+v", a2), fmt.Sprintf("%+v", b2)) {
			t.Errorf("%s: job %s:\nwith columns    %+v\nwithout columns %+v", what, job, a2, b2)
		}
	}
}

// The column path gives what the general one does on the shared logs and
// on random event files: steps in order, and with restarts, repeated
// steps, time going back, steps not in progression, several files a job.
func TestColumnsSameResults(t *testing.T) {
	shared := sharedFile(t, ".")
	for _, o := range []Options{{}, {RestartSkip: 30}} {
		on, off := readBoth(t, shared, 100, o)
		if len(on) == 0 {
			t.Fatal("no jobs in the shared data")
		}
		sameResults(t, "shared", on, off)
	}
	rng := rand.New(rand.NewSource(19))
	root := t.TempDir()
	for j := range 60 {
		files := 1 + rng.Intn(3)
		wall := 1.7e9 + float64(rng.Intn(1000))
		step := int64(rng.Intn(3)) * 1000
		stride := int64(1 + rng.Intn(5))
		for f := range files {
			b := fileVersion(nil, "brain.Event:2")
			n := 1 + rng.Intn(300)
			for range n {
				switch r := rng.Intn(400); {
				case r < 2 && step > 50:
					step -= int64(rng.Intn(50)) // restart
				case r < 4:
					// the same step again
				case r < 6:
					step += int64(1 + rng.Intn(3)) // off the progression
				case r < 7:
					step += 1 << 33 // past a uint32 offset
				default:
					step += stride
				}
				if rng.Intn(300) == 0 {
					wall -= 5 // time going back
				}
				wall += rng.Float64()
				tag := "loss"
				if rng.Intn(3) == 0 {
					tag = "accuracy"
				}
				w := wall
				if j%7 == 0 && rng.Intn(100) == 0 {
					w = math.NaN() // no time
				}
				b = appendEvent(b, w, step, simpleValue(tag, float32(rng.NormFloat64())))
			}
			writeFile(t, root, fmt.Sprintf("job-%02d/gen%d-ps%d-w%d/events.out.tfevents.%d.host", j, f, 1+f, 2+f, 1700000000+f), b)
		}
	}
	changes := []ConfigChange{{1.7e9, Configuration{1, 2}}, {1.7e9 + 500, Configuration{2, 4}}}
	for _, o := range []Options{{}, {RestartSkip: 20}, {Changes: changes}, {Metric: Metric{Tag: "accuracy"}, StepTag: "loss"}} {
		on, off := readBoth(t, root, 0, o)
		sameResults(t, fmt.Sprintf("random %+v", o), on, off)
	}
}
