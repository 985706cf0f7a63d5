package metrics

import (
	"math/rand/v2"
	"regexp"
	"testing"
)

// matchFiles and rotatedName agree with MatchFiles and the regular
// expression they replace, on names and patterns built from the bytes
// that matter to them.
func TestMatchFilesAndRotated(t *testing.T) {
	rotated := regexp.MustCompile(`^(.*)\.(\d+)$`)
	rng := rand.New(rand.NewPCG(9, 10))
	const alphabet = "ab.1*?[]\\/,\n -"
	str := func(n int) string {
		b := make([]byte, rng.IntN(n))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		return string(b)
	}
	for _, p := range []string{"events.out.tfevents.*", "*.log,*.txt,*.out", "*.jsonl,*.ndjson", "*.csv", "", ",", "*", "a*,b"} {
		for _, b := range []string{"events.out.tfevents.1.host", "train.log", "train.log.3", "x/train.log", "a", "", "metrics.jsonl"} {
			if got, want := matchFiles(p, b), MatchFiles(p, b); got != want {
				t.Errorf("matchFiles(%q, %q) = %v, MatchFiles says %v", p, b, got, want)
			}
		}
	}
	for range 200000 {
		p, b := str(8), str(8)
		if rng.IntN(2) == 0 {
			b = p // a pattern as a name: its literals match
		}
		if got, want := matchFiles(p, b), MatchFiles(p, b); got != want {
			t.Fatalf("matchFiles(%q, %q) = %v, MatchFiles says %v", p, b, got, want)
		}
		name, num, ok := rotatedName(b)
		m := rotated.FindStringSubmatch(b)
		if ok != (m != nil) || ok && (name != m[1] || num != m[2]) {
			t.Fatalf("rotatedName(%q) = %q %q %v, the expression says %q", b, name, num, ok, m)
		}
	}
}
