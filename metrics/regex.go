package metrics

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

func init() {
	register(&Source{
		Name:  "regex",
		Short: "any text log, by a regular expression with named groups",
		Long: `Reads the lines that match --regex-pattern, an RE2 regular expression with named
groups: step (the global step) or epoch (epochs completed), optionally time (seconds
since the Unix epoch, or a timestamp as Python's logging prints it), and one or more
metrics: a group named value is the metric --regex-tag names, any other named group a
metric of that name. For example, for "step 100 loss 0.52 took 1700000000.5":

  --regex-pattern 'step (?P<step>\d+) loss (?P<loss>[\d.eE+-]+|nan) took (?P<time>[\d.]+)'

Read only when --regex-pattern is given; lines that do not match are skipped.`,
		Files:    "*.log,*.txt,*.out",
		Explicit: true,
		Options: []Option{
			{Name: "pattern", Doc: "regular `EXPRESSION`, with named groups step or epoch and one or more metrics"},
			{Name: "tag", Default: "loss", Doc: "metric `NAME` of the group named value"},
		},
		New: newRegexReader,
	})
}

type regexReader struct {
	re                *regexp.Regexp
	step, epoch, wall int
	metrics           []int
	names             []string
}

func newRegexReader(opts map[string]string) (any, error) {
	if opts["pattern"] == "" {
		return nil, errors.New("--regex-pattern is empty")
	}
	re, err := regexp.Compile(opts["pattern"])
	if err != nil {
		return nil, fmt.Errorf("--regex-pattern: %v", err)
	}
	r := &regexReader{re: re, step: -1, epoch: -1, wall: -1}
	for i, n := range re.SubexpNames() {
		switch n {
		case "":
		case "step":
			r.step = i
		case "epoch":
			r.epoch = i
		case "time":
			r.wall = i
		case "value":
			if !validTag(opts["tag"]) {
				return nil, fmt.Errorf("--regex-tag %q is not a metric name", opts["tag"])
			}
			r.metrics, r.names = append(r.metrics, i), append(r.names, opts["tag"])
		default:
			r.metrics, r.names = append(r.metrics, i), append(r.names, n)
		}
	}
	if r.step < 0 && r.epoch < 0 {
		return nil, fmt.Errorf("--regex-pattern %q has no group named step or epoch: name one (?P<step>\\d+)", opts["pattern"])
	}
	if len(r.metrics) == 0 {
		return nil, fmt.Errorf("--regex-pattern %q has no metric group: name one (?P<value>...) or (?P<loss>...)", opts["pattern"])
	}
	return r, nil
}

func (r *regexReader) ReadLine(line []byte, emit Emit) (bool, error) {
	m := r.re.FindSubmatchIndex(line)
	if m == nil {
		return false, nil
	}
	group := func(i int) (string, bool) {
		if i < 0 || m[2*i] < 0 {
			return "", false
		}
		return string(line[m[2*i]:m[2*i+1]]), true
	}
	p := Point{Step: -1, Wall: nan}
	if s, ok := group(r.step); ok {
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return true, fmt.Errorf("step %q is not a number", s)
		}
		if p.Step, err = count("step", v); err != nil {
			return true, err
		}
	} else if s, ok := group(r.epoch); ok {
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return true, fmt.Errorf("epoch %q is not a number", s)
		}
		if p.Epoch, err = count("epoch", v); err != nil {
			return true, err
		}
	} else {
		return true, errors.New("matched without a step or an epoch")
	}
	if s, ok := group(r.wall); ok {
		if v, err := strconv.ParseFloat(s, 64); err == nil {
			t, err := parseTime(v, "", true)
			if err != nil {
				return true, err
			}
			p.Wall = t
		} else if t := leadingTime([]byte(s)); t == t {
			p.Wall = t
		} else {
			return true, fmt.Errorf("time %q is neither a number nor a timestamp", s)
		}
	}
	for k, i := range r.metrics {
		s, ok := group(i)
		if !ok {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return true, fmt.Errorf("%s %q is not a number", r.names[k], s)
		}
		p.Value = v
		emit(r.names[k], p)
	}
	return true, nil
}
