package metrics

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

func init() {
	register(&Source{
		Name:  "jsonl",
		Short: "JSON lines: one object per step or epoch",
		Long: `Reads one JSON object per line, such as {"step": 100, "loss": 0.52, "time": 1700000000.5}.
Every number at the top level is a metric named by its key, except the step (step,
global_step, trainer/global_step, iteration, iter or _step), the epoch (epoch) and the
time (time, timestamp, wall_time or _timestamp: seconds since the Unix epoch, or
milliseconds when larger than 1e11, or an RFC 3339 string). A line with a step is at
that step; one with only an epoch (epochs completed, counted from 0 as Keras does, so
epoch 0 is the end of the first) at the end of that epoch. NaN, Infinity and -Infinity,
as Python's json module writes them, are read as such. Nested objects and strings are
ignored.`,
		Files: "*.jsonl,*.ndjson",
		New:   func(map[string]string) (any, error) { return jsonLines{}, nil },
	})
}

var (
	stepKeys  = []string{"step", "global_step", "trainer/global_step", "iteration", "iter", "_step"}
	epochKeys = []string{"epoch"}
	timeKeys  = []string{"time", "timestamp", "wall_time", "_timestamp"}
)

func isKey(k string, keys []string) bool {
	for _, s := range keys {
		if k == s {
			return true
		}
	}
	return false
}

// The same lists as switches, for the line reader's every key.
func isStepKey(k string) bool {
	switch k {
	case "step", "global_step", "trainer/global_step", "iteration", "iter", "_step":
		return true
	}
	return false
}

func isTimeKey(k string) bool {
	switch k {
	case "time", "timestamp", "wall_time", "_timestamp":
		return true
	}
	return false
}

type jsonLines struct{}

type kv struct {
	key string
	val float64
}

func (jsonLines) ReadLine(line []byte, emit Emit) (bool, error) {
	// The line is scanned in place, not copied: nothing here outlives the
	// call but the keys emitted, which are interned (internKey).
	s := strings.TrimSpace(unsafe.String(unsafe.SliceData(line), len(line)))
	if s == "" {
		return true, nil
	}
	if s[0] != '{' {
		return false, nil
	}
	var buf [16]kv
	kvs := buf[:0]
	step, epoch, wall := int64(-1), int64(-1), nan
	err := scanObject(s, func(key string, num float64, str string, isNum bool) error {
		switch {
		case isTimeKey(key):
			t, err := parseTime(num, str, isNum)
			if err != nil {
				return err
			}
			wall = t
		case !isNum:
		case isStepKey(key):
			v, err := count(key, num)
			if err != nil {
				return err
			}
			step = v
		case key == "epoch":
			v, err := count(key, num)
			if err != nil {
				return err
			}
			epoch = v
		default:
			if !asciiTag(key) && !validTag(key) {
				return fmt.Errorf("key %q is not valid UTF-8 text", key)
			}
			kvs = append(kvs, kv{key: internKey(key), val: num})
		}
		return nil
	})
	if err != nil {
		return true, err
	}
	if len(kvs) == 0 {
		return true, nil
	}
	p := Point{Step: step, Wall: wall}
	if step < 0 {
		if epoch < 0 {
			return true, errors.New("neither a step nor an epoch")
		}
		p.Epoch = epoch + 1
	}
	for _, m := range kvs {
		p.Value = m.val
		emit(m.key, p)
	}
	return true, nil
}

// count reads a step or epoch: a whole number, not negative.
func count(key string, v float64) (int64, error) {
	if v < 0 || v != math.Trunc(v) || v > 1<<53 {
		return 0, fmt.Errorf("%s %v is not a whole number of at least 0", key, v)
	}
	return int64(v), nil
}

// parseTime reads a time: seconds since the epoch, milliseconds when the
// number is too large to be seconds, or an RFC 3339 string.
func parseTime(num float64, str string, isNum bool) (float64, error) {
	if !isNum {
		t, err := time.Parse(time.RFC3339Nano, str)
		if err != nil {
			return 0, fmt.Errorf("time %q is neither a number nor RFC 3339", str)
		}
		return float64(t.UnixNano()) / 1e9, nil
	}
	if math.IsNaN(num) || math.IsInf(num, 0) || num < 0 {
		return 0, fmt.Errorf("time %v is not a time", num)
	}
	if num > 1e11 {
		num /= 1000
	}
	return num, nil
}

// scanObject walks the top-level members of a JSON object, calling fn with
// each number (isNum) or string; nested values, booleans and nulls are
// skipped. It is a small scanner rather than encoding/json because the
// metrics of a long run are millions of lines.
func scanObject(s string, fn func(key string, num float64, str string, isNum bool) error) error {
	i := skipSpace(s, 1)
	if i < len(s) && s[i] == '}' {
		return nil
	}
	for {
		i = skipSpace(s, i)
		key, n, err := scanString(s, i)
		if err != nil {
			return err
		}
		i = skipSpace(s, n)
		if i >= len(s) || s[i] != ':' {
			return errors.New("not a JSON object: a key without ':'")
		}
		i = skipSpace(s, i+1)
		if i >= len(s) {
			return errors.New("not a JSON object: it ends early")
		}
		switch c := s[i]; {
		case c == '"':
			str, n, err := scanString(s, i)
			if err != nil {
				return err
			}
			if err := fn(key, 0, str, false); err != nil {
				return err
			}
			i = n
		case c == '{' || c == '[':
			n, err := skipNested(s, i)
			if err != nil {
				return err
			}
			i = n
		default:
			j := i
			for j < len(s) && s[j] != ',' && s[j] != '}' && s[j] != ' ' && s[j] != '\t' {
				j++
			}
			tok := s[i:j]
			switch tok {
			case "true", "false", "null":
			case "NaN":
				if err := fn(key, nan, "", true); err != nil {
					return err
				}
			case "Infinity", "-Infinity":
				if err := fn(key, math.Inf(map[bool]int{true: -1, false: 1}[tok[0] == '-']), "", true); err != nil {
					return err
				}
			default:
				v, ok := parseDecimal(tok)
				if !ok {
					var err error
					v, err = strconv.ParseFloat(tok, 64)
					if err != nil || tok[0] == '+' || tok[0] == '.' {
						return fmt.Errorf("value of %q is not JSON: %q", key, truncate([]byte(tok)))
					}
				}
				if err := fn(key, v, "", true); err != nil {
					return err
				}
			}
			i = j
		}
		i = skipSpace(s, i)
		if i >= len(s) {
			return errors.New("not a JSON object: it ends early")
		}
		if s[i] == '}' {
			if skipSpace(s, i+1) != len(s) {
				return errors.New("not one JSON object: text after its end")
			}
			return nil
		}
		if s[i] != ',' {
			return errors.New("not a JSON object: members not separated by ','")
		}
		i++
	}
}

// keyNames interns the metric keys of JSON lines, so that a line's tags
// outlive the line without a copy per line: a log's lines repeat a few
// keys. The map is replaced, never changed, so that lookups take no lock;
// past maxKeyNames keys (a log of ever new keys) a key is copied instead.
var keyNames struct {
	sync.Mutex
	m atomic.Pointer[map[string]string]
}

const maxKeyNames = 4096

// internKey returns a string equal to k (which may point into a line) that
// does not share its memory.
func internKey(k string) string {
	if m := keyNames.m.Load(); m != nil {
		if s, ok := (*m)[k]; ok {
			return s
		}
	}
	keyNames.Lock()
	defer keyNames.Unlock()
	old := keyNames.m.Load()
	if old != nil {
		if s, ok := (*old)[k]; ok {
			return s
		}
		if len(*old) >= maxKeyNames {
			return strings.Clone(k)
		}
	}
	m := make(map[string]string, 1+len(keyNamesOf(old)))
	for s := range keyNamesOf(old) {
		m[s] = s
	}
	s := strings.Clone(k)
	m[s] = s
	keyNames.m.Store(&m)
	return s
}

func keyNamesOf(m *map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	return *m
}

// pow10 are the powers of ten that float64 holds exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// parseDecimal parses the common number of a metrics line, an optional
// minus, digits and an optional fraction (-12, 0.5321, 1700000000.25),
// with at most 15 significant digits and 22 after the point. Such a
// number is m / 10^k with m and 10^k both exact in a float64, so the one
// division is rounded once, correctly, and the result is the one
// strconv.ParseFloat returns (Clinger's fast path, which strconv takes
// too). ok is false for anything else (exponents, more digits, hex,
// words, a malformed number): strconv.ParseFloat decides those.
func parseDecimal(tok string) (v float64, ok bool) {
	i := 0
	neg := tok != "" && tok[0] == '-'
	if neg {
		i = 1
	}
	var m uint64
	digits, frac, intDigits := 0, 0, 0
	dot := false
	for ; i < len(tok); i++ {
		c := tok[i]
		switch {
		case c >= '0' && c <= '9':
			if dot {
				frac++
			} else {
				intDigits++
			}
			if m == 0 && c == '0' {
				continue // a leading zero is not significant
			}
			if digits == 15 {
				return 0, false
			}
			m = m*10 + uint64(c-'0')
			digits++
		case c == '.' && !dot:
			dot = true
		default:
			return 0, false
		}
	}
	if intDigits == 0 || (dot && frac == 0) || frac >= len(pow10) {
		return 0, false
	}
	v = float64(m) / pow10[frac]
	if neg {
		v = -v
	}
	return v, true
}

// asciiTag reports whether a key is printable ASCII: a valid tag, known
// without validTag's rune by rune check.
func asciiTag(k string) bool {
	for i := 0; i < len(k); i++ {
		if k[i] < 0x20 || k[i] >= 0x7f {
			return false
		}
	}
	return k != ""
}

func skipSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n') {
		i++
	}
	return i
}

// scanString reads the JSON string at s[i] and returns it and the index
// after it.
func scanString(s string, i int) (string, int, error) {
	if i >= len(s) || s[i] != '"' {
		return "", 0, errors.New("not a JSON object: a key is not a string")
	}
	j := i + 1
	escaped := false
	for ; j < len(s); j++ {
		c := s[j]
		if c == '\\' {
			escaped = true
			j++
			continue
		}
		if c == '"' {
			break
		}
	}
	if j >= len(s) {
		return "", 0, errors.New("not a JSON object: an unterminated string")
	}
	if !escaped {
		return s[i+1 : j], j + 1, nil
	}
	u, err := strconv.Unquote(s[i : j+1])
	if err != nil {
		return "", 0, errors.New("not a JSON object: a bad escape in a string")
	}
	return u, j + 1, nil
}

// skipNested skips the object or array at s[i].
func skipNested(s string, i int) (int, error) {
	depth := 0
	for ; i < len(s); i++ {
		switch s[i] {
		case '"':
			_, n, err := scanString(s, i)
			if err != nil {
				return 0, err
			}
			i = n - 1
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1, nil
			}
		}
	}
	return 0, errors.New("not a JSON object: an unterminated nested value")
}
