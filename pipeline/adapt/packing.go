package adapt

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/optimus-sched/optimus/layout"
	"github.com/optimus-sched/optimus/solve"
)

// PackingColumn writes, for every running job, where solve's node-level
// check fitted its tasks (Result.Packing) as a JSON array of {"node", "ps",
// "workers"} objects (the alloc_nodes column); null for the other jobs and
// when the plan has no packing (--capacity aggregate).
func PackingColumn(res *solve.Result, nodes []string) ([]string, []bool) {
	n := len(res.Decisions)
	out, ok := make([]string, n), make([]bool, n)
	if res.Packing == nil {
		return out, ok
	}
	quoted := make([][]byte, len(nodes)) // JSON strings, made once per node used
	var b []byte
	for j, d := range res.Decisions {
		if d.Status != solve.Running || len(res.Packing[j]) == 0 {
			continue
		}
		b = append(b[:0], '[')
		for k, s := range res.Packing[j] {
			if quoted[s.Node] == nil {
				quoted[s.Node], _ = json.Marshal(nodes[s.Node])
			}
			if k > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"node":`...)
			b = append(b, quoted[s.Node]...)
			b = append(b, `,"ps":`...)
			b = strconv.AppendInt(b, int64(s.PS), 10)
			b = append(b, `,"workers":`...)
			b = strconv.AppendInt(b, int64(s.Workers), 10)
			b = append(b, '}')
		}
		b = append(b, ']')
		out[j], ok[j] = string(b), true
	}
	return out, ok
}

// ParsePacking reads an alloc_nodes value (see PackingColumn) against the
// cluster's nodes. stale reports a layout naming a node the cluster no
// longer has: it is then of no use, and slots is nil.
func ParsePacking(s string, nodeIndex map[string]int) (slots []layout.Slot, stale bool, err error) {
	entries, err := parsePacking(s)
	if err != nil {
		return nil, false, err
	}
	slots = make([]layout.Slot, len(entries))
	for k, e := range entries {
		n, ok := nodeIndex[e.Node]
		if !ok {
			return nil, true, nil
		}
		slots[k] = layout.Slot{Node: n, PS: e.PS, Workers: e.Workers}
	}
	return slots, false, nil
}

// parsePacking reads an alloc_nodes value into its entries.
func parsePacking(s string) ([]packedNode, error) {
	if slots, ok := parsePackingFast(s); ok {
		return slots, nil
	}
	var slots []packedNode
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&slots); err != nil {
		return nil, fmt.Errorf("not a JSON array of {\"node\", \"ps\", \"workers\"} objects: %v", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("text after the JSON array")
	}
	for _, sl := range slots {
		if sl.Node == "" || sl.PS < 0 || sl.Workers < 0 {
			return nil, fmt.Errorf("entry %+v: a node name and counts >= 0 are needed", sl)
		}
	}
	return slots, nil
}

// parsePackingFast reads alloc_nodes as PackingColumn writes it, without
// reflection (encoding/json is slow at 100,000 tasks); ok is
// false for anything else (escapes in node names, other spacing or order,
// bad values), which ParsePacking then reads, or rejects, with
// encoding/json.
func parsePackingFast(s string) (slots []packedNode, ok bool) {
	if !scanPackingFast(s, func(node string, ps, workers int) {
		slots = append(slots, packedNode{Node: node, PS: ps, Workers: workers})
	}) {
		return nil, false
	}
	return slots, true
}

// appendPackingFast reads an alloc_nodes value as parsePackingFast does,
// its nodes looked up in nodeIndex as ParsePacking does, but appends the
// slots to dst (place's hand-off reads every job's layout into one array)
// and returns them as a slice of it that cannot grow into the next job's,
// with dst extended. A layout naming a node the cluster lacks is stale:
// nil slots, dst as it was. ok is false, dst as it was, where the value is
// not written as PackingColumn writes it: ParsePacking then reads it.
func appendPackingFast(dst []layout.Slot, s string, nodeIndex map[string]int) (slots, out []layout.Slot, ok bool) {
	start := len(dst)
	stale := false
	ok = scanPackingFast(s, func(node string, ps, workers int) {
		n, known := nodeIndex[node]
		stale = stale || !known
		if !stale {
			dst = append(dst, layout.Slot{Node: n, PS: ps, Workers: workers})
		}
	})
	switch {
	case !ok:
		return nil, dst[:start], false
	case stale:
		return nil, dst[:start], true
	}
	return dst[start:len(dst):len(dst)], dst, true
}

// scanPackingFast calls each for every entry of an alloc_nodes value
// written as PackingColumn writes it (a non-empty array of
// {"node":"N","ps":P,"workers":W}, no escapes in N, counts without
// leading zeros) and reports whether the whole value was such; on false,
// each may have been called for the entries before the first it could
// not read.
func scanPackingFast(s string, each func(node string, ps, workers int)) bool {
	eat := func(prefix string) bool {
		if strings.HasPrefix(s, prefix) {
			s = s[len(prefix):]
			return true
		}
		return false
	}
	count := func() (int, bool) {
		n, i := 0, 0
		for i < len(s) && i < 9 && s[i] >= '0' && s[i] <= '9' {
			n = 10*n + int(s[i]-'0')
			i++
		}
		if i == 0 || i > 1 && s[0] == '0' {
			return 0, false
		}
		s = s[i:]
		return n, true
	}
	if !eat("[") {
		return false
	}
	for k := 0; ; k++ {
		if eat("]") {
			return k > 0 && s == ""
		}
		if k > 0 && !eat(",") || !eat(`{"node":"`) {
			return false
		}
		end := strings.IndexByte(s, '"')
		if end <= 0 {
			return false
		}
		node := s[:end]
		for i := 0; i < len(node); i++ {
			if node[i] == '\\' || node[i] < 0x20 {
				return false
			}
		}
		s = s[end+1:]
		if !eat(`,"ps":`) {
			return false
		}
		ps, okP := count()
		if !okP || !eat(`,"workers":`) {
			return false
		}
		workers, okW := count()
		if !okW || !eat("}") {
			return false
		}
		each(node, ps, workers)
	}
}

// packedNode is one entry of alloc_nodes as written: how many PS and
// workers of a job go on the node of that name.
type packedNode struct {
	Node    string `json:"node"`
	PS      int    `json:"ps"`
	Workers int    `json:"workers"`
}
