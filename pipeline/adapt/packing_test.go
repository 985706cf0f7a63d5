package adapt

import (
	"fmt"
	"slices"
	"testing"

	"github.com/optimus-sched/optimus/layout"
	"github.com/optimus-sched/optimus/solve"
)

func TestParsePacking(t *testing.T) {
	got, err := parsePacking(`[{"node":"a b","ps":2,"workers":0},{"node":"c\"d","ps":0,"workers":1}]`)
	if err != nil || fmt.Sprint(got) != `[{a b 2 0} {c"d 0 1}]` {
		t.Errorf("%v, %v", got, err)
	}
	// What PackingColumn writes reads back, whatever the node names.
	res := &solve.Result{Decisions: []solve.Decision{{Status: solve.Running}, {Status: solve.Waiting}},
		Packing: [][]layout.Slot{{{Node: 0, PS: 1, Workers: 2}, {Node: 1, PS: 3}}, nil}}
	col, ok := PackingColumn(res, []string{`a"b`, "é\\c\n"})
	want := []packedNode{{Node: `a"b`, PS: 1, Workers: 2}, {Node: "é\\c\n", PS: 3}}
	if got, err := parsePacking(col[0]); err != nil || !ok[0] || ok[1] || !slices.Equal(got, want) {
		t.Errorf("%s: %+v, %v", col[0], got, err)
	}
	// Other spacing and key orders are JSON too; escapes are decoded.
	for in, want := range map[string]string{
		`[{"node":"gpu-01","ps":0,"workers":2},{"node":"cpu-03","ps":3,"workers":0}]`: "[{gpu-01 0 2} {cpu-03 3 0}]",
		`[ {"workers": 2, "ps": 0, "node": "gpu-01"} ]`:                               "[{gpu-01 0 2}]",
		`[{"node":"a\u00e9\\","ps":10,"workers":0}]`:                                  `[{aé\ 10 0}]`,
		`[]`: "[]",
	} {
		if got, err := parsePacking(in); err != nil || fmt.Sprint(got) != want {
			t.Errorf("%s: %v, %v; want %s", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "[", `{"node":"a"}`, `[{"node":"a","ps":1,"workers":1,"gpu":2}]`, `[{"node":"","ps":1,"workers":1}]`,
		`[{"node":"a","ps":-1,"workers":1}]`, `[] []`, `[{"node":"a","ps":01,"workers":1}]`, `[{"node":"a","ps":1,"workers":1}]x`,
		`[{"node":"a","ps":1,"workers":1},]`} {
		if _, err := parsePacking(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestParsePackingAgainstCluster(t *testing.T) {
	idx := map[string]int{"a": 0, "b": 1}
	slots, stale, err := ParsePacking(`[{"node":"b","ps":1,"workers":2},{"node":"a","ps":0,"workers":1}]`, idx)
	if err != nil || stale || !slices.Equal(slots, []layout.Slot{{Node: 1, PS: 1, Workers: 2}, {Node: 0, Workers: 1}}) {
		t.Errorf("%v %v %v", slots, stale, err)
	}
	if slots, stale, err := ParsePacking(`[{"node":"gone","ps":1,"workers":1}]`, idx); err != nil || !stale || slots != nil {
		t.Errorf("a node the cluster lacks: %v %v %v, want stale", slots, stale, err)
	}
}

// appendPackingFast gives ParsePacking's slots wherever it reads a value,
// leaves dst as it was where it does not (ParsePacking then decides) and
// where the layout is stale, and hands out slices that cannot grow into
// the next job's slots.
func TestAppendPackingFastAgreesWithParsePacking(t *testing.T) {
	idx := map[string]int{"a": 0, "b": 1, "gpu-01": 2}
	dst := []layout.Slot{{Node: 9, PS: 9, Workers: 9}}
	fast := 0
	for _, in := range []string{
		`[{"node":"b","ps":1,"workers":2},{"node":"a","ps":0,"workers":1}]`,
		`[{"node":"gpu-01","ps":0,"workers":0}]`,
		`[{"node":"gone","ps":1,"workers":1}]`,
		`[{"node":"a","ps":1,"workers":1},{"node":"gone","ps":1,"workers":1}]`,
		`[{"node":"gone","ps":1,"workers":1},{"node":"a","ps":1,"workers":1}]`,
		`[{"node":"gone","ps":1,"workers":1},{"node":"a","ps":01,"workers":1}]`,
		`[ {"workers": 2, "ps": 0, "node": "a"} ]`, `[{"node":"a\u0062","ps":1,"workers":1}]`,
		`[]`, "", "[", `[{"node":"a","ps":1,"workers":1}]x`, `[{"node":"a","ps":1,"workers":1},]`,
		`[{"node":"","ps":1,"workers":1}]`, `[{"node":"a","ps":1234567890,"workers":1}]`,
	} {
		before := len(dst)
		slots, out, ok := appendPackingFast(dst, in, idx)
		want, wantStale, err := ParsePacking(in, idx)
		switch {
		case !ok:
			if len(out) != before || slots != nil {
				t.Errorf("%s: not read, but %v appended or %v returned", in, out[before:], slots)
			}
		case err != nil:
			t.Errorf("%s: read as %v, but ParsePacking: %v", in, slots, err)
		case !slices.Equal(slots, want) || (slots == nil) != wantStale:
			t.Errorf("%s: %v, want %v (stale %v)", in, slots, want, wantStale)
		case slots != nil && (cap(slots) != len(slots) || len(out) != before+len(slots)):
			t.Errorf("%s: slots %d of cap %d, dst %d to %d", in, len(slots), cap(slots), before, len(out))
		default:
			fast++
			if slots == nil && len(out) != before {
				t.Errorf("%s: stale, but dst grew from %d to %d", in, before, len(out))
			}
		}
		dst = out
	}
	if fast != 5 || dst[0] != (layout.Slot{Node: 9, PS: 9, Workers: 9}) {
		t.Errorf("%d values read fast, want 5; dst starts %v", fast, dst[0])
	}
}
