package chart

import (
	_ "embed"
	"encoding/json"
	"hash/fnv"
	"sort"
	"sync"
)

// The palette of every page: one colour per policy whatever else a page
// shows, one line type per knowledge, and one colour per job name on every
// chart. It lives in palette.json, which the notebook reads too, so that a
// policy looks the same in both.
//
//go:embed palette.json
var paletteJSON []byte

// Palette is palette.json: see its "doc".
type Palette struct {
	Policies        map[string]string `json:"policies"`
	UnknownPolicies []string          `json:"unknown_policies"`
	Knowledge       map[string]string `json:"knowledge"`
	Now             string            `json:"now"`
	Other           string            `json:"other"`
	Jobs            []string          `json:"jobs"`
}

// thePalette is palette.json, read when first used (not at every start).
var thePalette = sync.OnceValue(func() Palette {
	var p Palette
	if err := json.Unmarshal(paletteJSON, &p); err != nil {
		panic("chart: palette.json: " + err.Error())
	}
	if len(p.UnknownPolicies) == 0 || len(p.Jobs) == 0 {
		panic("chart: palette.json has no colours for unknown policies or jobs")
	}
	return p
})

// fnv1a32 is the 32-bit FNV-1a hash of s, the hash palette.json names.
func fnv1a32(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}

// jobColour is the colour of a job on every chart: a hash of its name, not
// its position, so that it does not change with the jobs beside it.
func jobColour(job string) string {
	return thePalette().Jobs[fnv1a32(job)%uint32(len(thePalette().Jobs))]
}

// policyColours gives each of names (the policies of one page or chart)
// its colour: the palette's for a listed policy; for any other, the
// unknown_policies colour its name hashes to, or the next one no policy
// of names has (in sorted order of the unlisted names, so that the result
// does not depend on the order of names).
func policyColours(names []string) map[string]string {
	out := map[string]string{}
	taken := map[string]bool{}
	var unknown []string
	for _, n := range names {
		if c, ok := thePalette().Policies[n]; ok {
			out[n] = c
			taken[c] = true
		} else if _, dup := out[n]; !dup {
			unknown = append(unknown, n)
			out[n] = ""
		}
	}
	sort.Strings(unknown)
	u := thePalette().UnknownPolicies
	for _, n := range unknown {
		start := int(fnv1a32(n) % uint32(len(u)))
		c := u[start]
		for k := 0; k < len(u); k++ {
			if cand := u[(start+k)%len(u)]; !taken[cand] {
				c = cand
				break
			}
		}
		out[n] = c
		taken[c] = true
	}
	return out
}

// lineType is the line type of a run with knowledge k: dashed for oracle,
// solid for fitted.
func lineType(k string) string {
	if t, ok := thePalette().Knowledge[k]; ok {
		return t
	}
	return "solid"
}
