package metrics

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

func init() {
	register(&Source{
		Name:  "mxnet",
		Short: "MXNet's Speedometer and epoch lines (Module.fit, Gluon's estimator logging)",
		Long: `Reads the lines MXNet's logging prints:

  Epoch[3] Batch [100-120]	Speed: 1234.56 samples/sec	accuracy=0.512
  Epoch[3] Train-accuracy=0.530
  Epoch[3] Validation-accuracy=0.368
  Epoch[3] Time cost=114.267

each name=value a metric named as printed (accuracy, Train-accuracy,
Validation-accuracy, cross-entropy...). MXNet counts epochs from 0 and batches within
an epoch: a Speedometer line is at step epoch x epoch_steps + its last batch, an epoch
line at the end of the epoch, so the job's epoch_steps must be known (--jobs or
--epoch-steps). The time is the line's leading timestamp (2019-06-18 18:15:38,827, as
Python's logging prints it, taken as UTC); lines without one have none. Time cost and
Speed are not metrics: optimus measures speed from the steps and times of the lines.`,
		Files: "*.log,*.txt,*.out",
		New:   func(map[string]string) (any, error) { return mxnetReader{}, nil },
	})
}

// The expressions of MXNet's lines, compiled when first used rather than
// at every start of the binary.
var (
	mxnetEpoch = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`Epoch\[(\d+)\]`) })
	mxnetBatch = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`Batch\s*\[(?:\d+-)?(\d+)\]`) })
	mxnetPair  = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`([A-Za-z][\w\-./]*)=([-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|nan|inf|NaN|Inf))`)
	})
	leadingStamp = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^\[?(\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?)`)
	})
	stampLayouts   = []string{"2006-01-02 15:04:05", "2006-01-02T15:04:05"}
	mxnetTimeCost  = []byte("Time cost=")
	mxnetEpochMark = []byte("Epoch[")
)

type mxnetReader struct{}

func (mxnetReader) ReadLine(line []byte, emit Emit) (bool, error) {
	i := bytes.Index(line, mxnetEpochMark)
	if i < 0 {
		return false, nil
	}
	em := mxnetEpoch().FindSubmatch(line[i:])
	if em == nil {
		return false, nil
	}
	epoch, err := strconv.ParseInt(string(em[1]), 10, 64)
	if err != nil {
		return true, err
	}
	rest := line[i+len(em[0]):]
	p := Point{Step: -1, Wall: leadingTime(line)}
	if bm := mxnetBatch().FindSubmatch(rest); bm != nil {
		b, err := strconv.ParseInt(string(bm[1]), 10, 32)
		if err != nil {
			return true, err
		}
		p.Epoch, p.Batch = epoch, int32(b)
		rest = rest[bytes.Index(rest, bm[0])+len(bm[0]):]
	} else {
		p.Epoch = epoch + 1
	}
	if bytes.Contains(rest, mxnetTimeCost) {
		return true, nil
	}
	for _, m := range mxnetPair().FindAllSubmatch(rest, -1) {
		v, err := strconv.ParseFloat(string(m[2]), 64)
		if err != nil {
			continue
		}
		tag := string(m[1])
		if strings.EqualFold(tag, "Speed") {
			continue
		}
		p.Value = v
		emit(tag, p)
	}
	return true, nil
}

// leadingTime reads the timestamp Python's logging puts first on a line
// (as UTC), or NaN.
func leadingTime(line []byte) float64 {
	m := leadingStamp().FindSubmatch(line)
	if m == nil {
		return nan
	}
	s := strings.Replace(string(m[1]), ",", ".", 1)
	frac := ""
	if k := strings.IndexByte(s, '.'); k >= 0 {
		s, frac = s[:k], s[k:]
	}
	for _, l := range stampLayouts {
		if t, err := time.Parse(l, s); err == nil {
			sec := float64(t.Unix())
			if frac != "" {
				f, _ := strconv.ParseFloat("0"+frac, 64)
				sec += f
			}
			return sec
		}
	}
	return nan
}
