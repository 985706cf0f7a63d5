package metrics

import (
	"fmt"
	"path"
	"path/filepath"
	"sort"
	"strings"
)

// JobRule files the logs whose path matches Pattern under Job, where the
// first path component under the root does not name the job (a tree by
// date, a log collector's flat directory).
type JobRule struct {
	// Pattern is a path.Match pattern of the path under the root, with
	// slashes ("2024-*/resnet-a-*.log"); one without a slash matches the
	// base name alone ("resnet-a-*.log").
	Pattern string
	Job     string
}

// ParseJobRule reads PATTERN=JOB.
func ParseJobRule(s string) (JobRule, error) {
	i := strings.LastIndexByte(s, '=')
	if i <= 0 || i == len(s)-1 {
		return JobRule{}, fmt.Errorf("%q: give PATTERN=JOB", s)
	}
	r := JobRule{Pattern: s[:i], Job: s[i+1:]}
	if _, err := path.Match(r.Pattern, ""); err != nil {
		return JobRule{}, fmt.Errorf("%q: pattern %q: %v", s, r.Pattern, err)
	}
	if why := badJobName(r.Job); why != "" {
		return JobRule{}, fmt.Errorf("%q: %s", s, why)
	}
	return r, nil
}

func (r JobRule) match(rel string) bool {
	if !strings.Contains(r.Pattern, "/") {
		rel = path.Base(rel)
	}
	ok, _ := path.Match(r.Pattern, rel)
	return ok
}

// MapJobs re-files the logs Discover found under root: a file whose path
// matches a rule (the first that does) belongs to the rule's job, the
// others stay where the first path component put them. Jobs come sorted
// by name, each one's files in reading order.
func MapJobs(root string, found []JobLogs, rules []JobRule) []JobLogs {
	if len(rules) == 0 {
		return found
	}
	byJob := map[string]*JobLogs{}
	add := func(job string, f LogFile) {
		jl := byJob[job]
		if jl == nil {
			jl = &JobLogs{Job: job}
			byJob[job] = jl
		}
		jl.Files = append(jl.Files, f)
	}
	for _, jl := range found {
		for _, f := range jl.Files {
			job := jl.Job
			if rel, err := filepath.Rel(root, f.Path); err == nil {
				for _, r := range rules {
					if r.match(filepath.ToSlash(rel)) {
						job = r.Job
						break
					}
				}
			}
			add(job, f)
		}
	}
	out := make([]JobLogs, 0, len(byJob))
	for _, jl := range byJob {
		sortFiles(jl.Files)
		out = append(out, *jl)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Job < out[j].Job })
	return out
}
