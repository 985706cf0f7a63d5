package metrics

import (
	"fmt"
	"sort"
	"strings"
)

// NewReaders sets up the sources that read: those named (none: every
// source that is not explicit, and the explicit ones given an option),
// each with its options (by source, then option name) and its file
// patterns (files[source] replaces the source's own). A source that is
// given options but not named is an error, as is an unknown name. The
// user's explicit sources come first, so that a line the user's regular
// expression matches is read by it only.
func NewReaders(names []string, opts map[string]map[string]string, files map[string]string) ([]Reader, error) {
	chosen := map[string]bool{}
	for _, n := range names {
		if Lookup(n) == nil {
			return nil, fmt.Errorf("no source %q (known: %s)", n, strings.Join(Names(), ", "))
		}
		chosen[n] = true
	}
	for n, o := range opts {
		s := Lookup(n)
		if s == nil {
			return nil, fmt.Errorf("no source %q (known: %s)", n, strings.Join(Names(), ", "))
		}
		if len(o) == 0 {
			continue
		}
		if len(names) > 0 && !chosen[n] {
			return nil, fmt.Errorf("options for the %s source, which --source leaves out", n)
		}
		chosen[n] = true
	}
	// What a collector fetches is read by the text sources: naming only
	// collectors leaves the formats to the defaults.
	onlyCollectors := true
	for n := range chosen {
		if !Lookup(n).Collects {
			onlyCollectors = false
		}
	}
	if len(names) == 0 || onlyCollectors {
		for _, s := range Sources() {
			if !s.Explicit && !s.Collects {
				chosen[s.Name] = true
			}
		}
	}
	var out []Reader
	for _, s := range Sources() {
		if !chosen[s.Name] {
			continue
		}
		r, err := s.Reader(opts[s.Name])
		if err != nil {
			return nil, err
		}
		pat := s.Files
		if f, ok := files[s.Name]; ok && f != "" {
			if err := CheckPatterns(f); err != nil {
				return nil, fmt.Errorf("--%s-files: %v", s.Name, err)
			}
			pat = f
		}
		out = append(out, Reader{Source: s, Files: pat, Reader: r})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Source.Explicit && !out[j].Source.Explicit })
	return out, nil
}
