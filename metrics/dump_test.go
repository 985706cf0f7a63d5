package metrics

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

func TestDump(t *testing.T) {
	files, _ := filepath.Glob("/work/shared/data/tfevents/events/*")
	for _, f := range files {
		fh, _ := os.Open(f)
		st, _ := fh.Stat()
		count := map[string]int{}
		first := map[string]Point{}
		last := map[string]Point{}
		nw := 0
		err := eventReader{}.ReadFile(f, fh, st.Size(), func(tag string, p Point) {
			if count[tag] == 0 {
				first[tag] = p
			}
			count[tag]++
			last[tag] = p
		}, func(e *Error) { nw++; fmt.Println("warn", e) })
		fh.Close()
		fmt.Println(filepath.Base(f), err, nw)
		var tags []string
		for k := range count {
			tags = append(tags, k)
		}
		sort.Strings(tags)
		for _, k := range tags {
			fmt.Printf("  %-30s %5d first %+v last %+v\n", k, count[k], first[k], last[k])
		}
	}
}
