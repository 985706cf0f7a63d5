package metrics

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
)

func init() {
	register(&Source{
		Name:  "mllog",
		Short: "MLPerf's logging lines (:::MLLOG {json}, and v0.6's :::MLL TIME KEY: {json})",
		Long: `Reads the lines of MLPerf's mlperf_logging package, anywhere in a line (after a
launcher's prefix too):

  :::MLLOG {"key": "eval_accuracy", "value": 0.75, "time_ms": 1593990408615,
            "metadata": {"epoch_num": 4}}
  :::MLL 1560882199.301 eval_accuracy: {"value": 0.36176, "metadata": {"epoch_num": 4}}

Every key with a numeric value is a metric (eval_accuracy, eval_loss, train_loss...);
keys whose value is not a number (run_start, submission_org...) are skipped. The step
is the metadata's step_num (or step), else the epoch is its epoch_num, counted as MLPerf
does: epochs completed; the time is time_ms, or the v0.6 line's time in seconds.`,
		Files: "*.log,*.txt,*.out",
		New:   func(map[string]string) (any, error) { return mllogReader{}, nil },
	})
}

var (
	mllogMark = []byte(":::MLLOG ")
	mllMark   = []byte(":::MLL ")
)

type mllogReader struct{}

type mllogRecord struct {
	Key      string          `json:"key"`
	Value    json.RawMessage `json:"value"`
	TimeMS   *float64        `json:"time_ms"`
	Metadata struct {
		EpochNum *float64 `json:"epoch_num"`
		StepNum  *float64 `json:"step_num"`
		Step     *float64 `json:"step"`
	} `json:"metadata"`
}

func (mllogReader) ReadLine(line []byte, emit Emit) (bool, error) {
	var rec mllogRecord
	wall := nan
	if i := bytes.Index(line, mllogMark); i >= 0 {
		if err := json.Unmarshal(line[i+len(mllogMark):], &rec); err != nil {
			return true, errors.New("the :::MLLOG line's JSON does not parse")
		}
		if rec.TimeMS != nil {
			wall = *rec.TimeMS / 1000
		}
	} else if i := bytes.Index(line, mllMark); i >= 0 {
		// :::MLL 1560882199.301 eval_accuracy: {...}
		rest := line[i+len(mllMark):]
		sp := bytes.IndexByte(rest, ' ')
		colon := bytes.Index(rest, []byte(": "))
		if sp < 0 || colon < sp {
			return true, errors.New("a :::MLL line without a time and key")
		}
		t, err := strconv.ParseFloat(string(rest[:sp]), 64)
		if err != nil {
			return true, fmt.Errorf("the :::MLL line's time %q is not a number", truncate(rest[:sp]))
		}
		wall = t
		if err := json.Unmarshal(rest[colon+2:], &rec); err != nil {
			return true, errors.New("the :::MLL line's JSON does not parse")
		}
		rec.Key = string(bytes.TrimSpace(rest[sp+1 : colon]))
	} else {
		return false, nil
	}
	var v float64
	if err := json.Unmarshal(rec.Value, &v); err != nil {
		return true, nil // not a number: an event, a setting
	}
	if !validTag(rec.Key) {
		return true, fmt.Errorf("key %q is not valid UTF-8 text", truncate([]byte(rec.Key)))
	}
	p := Point{Step: -1, Wall: wall, Value: v}
	md := rec.Metadata
	switch {
	case md.StepNum != nil || md.Step != nil:
		s := md.StepNum
		if s == nil {
			s = md.Step
		}
		n, err := count("step_num", *s)
		if err != nil {
			return true, err
		}
		p.Step = n
	case md.EpochNum != nil:
		n, err := count("epoch_num", *md.EpochNum)
		if err != nil {
			return true, err
		}
		p.Epoch = n
	default:
		return true, nil // a setting logged once (global_batch_size...): no step
	}
	if math.IsNaN(p.Wall) || p.Wall <= 0 {
		p.Wall = nan
	}
	emit(rec.Key, p)
	return true, nil
}
