package apply

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strings"

	"github.com/optimus-sched/optimus/executor"
)

// Generation names a plan by its tasks: the same tasks on the same nodes give
// the same generation, so re-applying a plan labels nothing anew.
func Generation(p Plan) string {
	rows := make([]string, len(p.Tasks))
	for i, t := range p.Tasks {
		rows[i] = t.Name() + "@" + t.Node
	}
	sort.Strings(rows)
	sum := sha256.Sum256([]byte(strings.Join(rows, "\n")))
	return "g" + hex.EncodeToString(sum[:])[:12]
}

// Failed counts the results (and task results) that failed.
func Failed(results []executor.Result) int {
	n := 0
	for _, r := range results {
		if r.Outcome == executor.OutcomeFailed {
			n++
			continue
		}
		for _, t := range r.Tasks {
			if t.Outcome == executor.OutcomeFailed {
				n++
				break
			}
		}
	}
	return n
}
