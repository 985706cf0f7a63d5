package metrics

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
)

// parseDecimal's numbers are strconv.ParseFloat's, bit for bit, and what
// it declines, strconv decides.
func TestParseDecimal(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	toks := []string{"0", "-0", "0.0", "-0.0", "007", "1.50", "123456789012345", "1234567890123456", "0.000000000000000000001",
		"0.0000000000000000000001", "0.00000000000000000000001", "1700000000.5", "1.", ".5", "-.5", "-", "", "1.2.3", "1e5", "+1",
		"0x1p-2", "inf", "NaN", "1_000", "99999999999999.9", "9007199254740993"}
	for range 50000 {
		x := math.Float64frombits(rng.Uint64())
		if math.IsNaN(x) || math.IsInf(x, 0) {
			continue
		}
		toks = append(toks,
			strconv.FormatFloat(x, 'g', -1, 64),
			strconv.FormatFloat(float64(float32(rng.Float64()*math.Pow(10, float64(rng.IntN(12)-6)))), 'g', -1, 32),
			strconv.FormatFloat(rng.Float64()*math.Pow(10, float64(rng.IntN(16))), 'f', rng.IntN(12), 64),
			strconv.FormatInt(rng.Int64N(1<<53)-1<<52, 10))
		// Random digit strings around the 15-digit and 22-place limits.
		b := []byte{}
		if rng.IntN(2) == 0 {
			b = append(b, '-')
		}
		for range 1 + rng.IntN(18) {
			b = append(b, byte('0'+rng.IntN(10)))
		}
		if rng.IntN(3) > 0 {
			b = append(b, '.')
			for range rng.IntN(25) {
				b = append(b, byte('0'+rng.IntN(10)))
			}
		}
		toks = append(toks, string(b))
	}
	fast := 0
	for _, tok := range toks {
		v, ok := parseDecimal(tok)
		if !ok {
			continue
		}
		fast++
		want, err := strconv.ParseFloat(tok, 64)
		if err != nil || math.Float64bits(v) != math.Float64bits(want) {
			t.Fatalf("parseDecimal(%q) = %v (%#x), strconv says %v (%#x), %v", tok, v, math.Float64bits(v), want, math.Float64bits(want), err)
		}
	}
	if fast < len(toks)/4 {
		t.Errorf("only %d of %d numbers parsed by the fast path", fast, len(toks))
	}
	for _, tok := range []string{"0.5321", "-12", "1700000000.25", "0.012345678", "0.95123456", "1"} {
		if _, ok := parseDecimal(tok); !ok {
			t.Errorf("parseDecimal(%q) left a metrics line's number to strconv", tok)
		}
	}
	for _, tok := range []string{"1e5", ".5", "1.", "-", "", "+1", "0x1p-2", "1234567890123456", "0.00000000000000000000001"} {
		if _, ok := parseDecimal(tok); ok {
			t.Errorf("parseDecimal(%q) took the fast path", tok)
		}
	}
}

// The points of the shared event files, written as JSON lines by
// encoding/json (shortest float formatting, exponents included) and by
// Python's json module's layout, read back by the JSON lines reader: the
// same values as the event reader's, and as encoding/json decodes them.
func TestJSONLinesSharedPoints(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(filepath.Dir(sharedFile(t, "events/katib-tf2-train.tfevents")), "*.tfevents"))
	if len(files) < 5 {
		t.Fatalf("%d shared event files", len(files))
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			ev := readWith(t, eventReader{}, path)
			if ev.err != nil {
				t.Fatal(ev.err)
			}
			tags := make([]string, 0, len(ev.points))
			for tag := range ev.points {
				if asciiTag(tag) && !isStepKey(tag) && !isTimeKey(tag) && tag != "epoch" {
					tags = append(tags, tag)
				}
			}
			sort.Strings(tags)
			var lines []byte
			want := map[string][]Point{}
			for i, tag := range tags {
				for k, p := range ev.points[tag] {
					if math.IsNaN(p.Value) || math.IsInf(p.Value, 0) {
						continue
					}
					var line []byte
					if (i+k)%2 == 0 {
						obj := map[string]any{"step": p.Step, tag: p.Value, "time": p.Wall, "note": "x", "extra": []int{1}}
						var err error
						if line, err = json.Marshal(obj); err != nil {
							t.Fatal(err)
						}
					} else {
						// Python's json.dumps: ", " and ": " separators, repr floats.
						line = fmt.Appendf(nil, `{"step": %d, %s: %s, "time": %s}`, p.Step, strconv.Quote(tag), pyRepr(p.Value), pyRepr(p.Wall))
					}
					var decoded map[string]any
					if err := json.Unmarshal(line, &decoded); err != nil {
						t.Fatalf("%s: %v", line, err)
					}
					lines = append(append(lines, line...), '\n')
					want[tag] = append(want[tag], Point{Step: p.Step, Wall: decoded["time"].(float64), Value: decoded[tag].(float64)})
					if decoded[tag].(float64) != p.Value {
						t.Fatalf("%s: encoding/json reads %v, the event file holds %v", line, decoded[tag], p.Value)
					}
				}
			}
			out := lineRead(t, writeFile(t, t.TempDir(), "metrics.jsonl", lines), jsonLines{})
			if out.err != nil || len(out.warns) > 0 {
				t.Fatalf("err %v, warnings %v", out.err, out.warns)
			}
			for _, tag := range tags {
				got, w := out.points[tag], want[tag]
				if len(got) != len(w) {
					t.Fatalf("%s: %d points, want %d", tag, len(got), len(w))
				}
				for k := range w {
					if got[k].Step != w[k].Step || math.Float64bits(got[k].Value) != math.Float64bits(w[k].Value) || got[k].Wall != w[k].Wall {
						t.Fatalf("%s point %d: %+v, want %+v", tag, k, got[k], w[k])
					}
				}
			}
		})
	}
}

// pyRepr formats a float as Python's repr does: the shortest digits,
// exponents below 1e-4 and from 1e16.
func pyRepr(v float64) string {
	if a := math.Abs(v); a != 0 && (a < 1e-4 || a >= 1e16) {
		return strconv.FormatFloat(v, 'e', -1, 64)
	}
	s := strconv.FormatFloat(v, 'f', -1, 64)
	if v == math.Trunc(v) {
		s += ".0"
	}
	return s
}

// The switches of the JSON lines reader say what the key lists that the
// CSV reader uses say.
func TestKeySwitches(t *testing.T) {
	keys := append(append(append([]string{"loss", "Step", "times", "", "epochs"}, stepKeys...), timeKeys...), epochKeys...)
	for _, k := range keys {
		if isStepKey(k) != isKey(k, stepKeys) || isTimeKey(k) != isKey(k, timeKeys) || (k == "epoch") != isKey(k, epochKeys) {
			t.Errorf("%q: the switches and the lists disagree", k)
		}
	}
}
