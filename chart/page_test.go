package chart

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"github.com/optimus-sched/optimus/chart/charttest"
	htmlpkg "html"
	"regexp"
	"strings"
	"testing"

	"github.com/optimus-sched/optimus/io/schema"
)

// hostileNames are one of each class of name that has broken pages:
// go-echarts' function marker around code and at the end of a name,
// markup, the end of a script element, quotes and backslashes, the line
// separators JavaScript strings once could not hold, and a long name.
var hostileNames = []string{
	"__f__(document.body.dataset.x=1)__f__",
	"tail__f__",
	"<img src=x onerror=document.body.dataset.x=1>",
	"</script><script>document.body.dataset.x=1</script>",
	`"'\<!--` + "`${1}`",
	"a\u2028b\u2029c",
	strings.Repeat("long-", 400),
}

// withJobs rewrites the job column of a CSV text, job i of the first
// distinct ones becoming names[i].
func withJobs(t *testing.T, text string, names map[string]string) string {
	t.Helper()
	recs, err := csv.NewReader(strings.NewReader(text)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := -1
	for i, h := range recs[0] {
		if h == "job" {
			col = i
		}
	}
	for _, r := range recs[1:] {
		if n, ok := names[r[col]]; ok {
			r[col] = n
		}
	}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	if err := w.WriteAll(recs); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

var cspRE = regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]*)">`)

// script is one <script ATTRS>BODY</script> of a page.
type script struct{ attrs, body string }

// scripts finds what the regular expression (?s)<script([^>]*)>(.*?)</script>
// finds, leftmost first, and the page with them removed. By hand, because
// the pages carry echarts (about a megabyte) and regexp's matcher took
// nearly all of this package's test time scanning it.
func scripts(html string) (found []script, outside string) {
	var rest strings.Builder
	for {
		i := strings.Index(html, "<script")
		if i < 0 {
			break
		}
		open := i + len("<script")
		gt := strings.IndexByte(html[open:], '>')
		if gt < 0 {
			break
		}
		body := open + gt + 1
		end := strings.Index(html[body:], "</script>")
		if end < 0 {
			break
		}
		found = append(found, script{attrs: html[open : open+gt], body: html[body : body+end]})
		rest.WriteString(html[:i])
		html = html[body+end+len("</script>"):]
	}
	rest.WriteString(html)
	return found, rest.String()
}

// Whatever the names, a page runs exactly two scripts, echarts and
// page.js, byte for byte, and its Content-Security-Policy allows exactly
// those by their hashes; everything from the tables is in JSON data blocks
// that give the names back unchanged.
func TestHostileNamesAreOnlyData(t *testing.T) {
	charttest.NeedAssets(t, CheckAssets())
	for _, name := range hostileNames {
		names := map[string]string{"a": name, "b": name + "2", "c": "c" + name}
		pages := map[string]*Page{}
		p, err := Lookup("loss").BuildPage(Tables{Main: {lossTable(t, name, []float64{3, 2, 1.5, 1.3})}})
		if err != nil {
			t.Fatal(err)
		}
		pages["loss"] = p
		pages["simulation"] = simPage(t, Tables{
			Main:          {csvTable(t, schema.SimJobs, "sim_jobs.csv", withJobs(t, simJobsCSV, names))},
			"allocations": {csvTable(t, schema.SimAllocations, "sim_allocations.csv", withJobs(t, simAllocCSV, names))},
			"utilisation": {csvTable(t, schema.SimUtilisation, "sim_utilisation.csv", simUtilCSV)},
		})
		for kind, p := range pages {
			var buf bytes.Buffer
			if err := p.Render(&buf); err != nil {
				t.Fatal(err)
			}
			html := buf.String()
			var run []string
			seen := map[string]bool{}
			found, outside := scripts(html)
			for _, m := range found {
				if strings.Contains(m.attrs, `type="application/json"`) {
					var v any
					if err := json.Unmarshal([]byte(m.body), &v); err != nil {
						t.Errorf("%s, job %.40q: a data block is not JSON: %v", kind, name, err)
					}
					collectStrings(v, seen)
					continue
				}
				run = append(run, m.body)
			}
			if len(run) != 2 || run[0] != echartsJS() || run[1] != pageJS {
				t.Errorf("%s, job %.40q: the page runs %d scripts, want echarts and page.js unchanged", kind, name, len(run))
			}
			if !seen[name] {
				t.Errorf("%s, job %.40q: the name is not in the page's data as it is", kind, name)
			}
			m := cspRE.FindStringSubmatch(html)
			if m == nil {
				t.Fatalf("%s: no Content-Security-Policy", kind)
			}
			policy := htmlpkg.UnescapeString(m[1])
			want := "script-src " + scriptHash(echartsJS()) + " " + scriptHash(pageJS) + ";"
			if !strings.Contains(policy, want) || strings.Contains(policy, "unsafe-eval") || strings.Contains(policy, "script-src 'unsafe-inline'") ||
				!strings.Contains(policy, "object-src 'none'") || !strings.Contains(policy, "base-uri 'none'") {
				t.Errorf("%s: CSP %s, want %s", kind, policy, want)
			}
			if strings.Contains(outside, "<img") || strings.Contains(outside, "<!--") {
				t.Errorf("%s, job %.40q: markup outside the scripts", kind, name)
			}
		}
	}
}

func collectStrings(v any, seen map[string]bool) {
	switch v := v.(type) {
	case string:
		seen[v] = true
	case []any:
		for _, x := range v {
			collectStrings(x, seen)
		}
	case map[string]any:
		for _, x := range v {
			collectStrings(x, seen)
		}
	}
}

// Every formatter a chart binds is one page.js defines, and no option
// holds go-echarts' function marker: no chart carries code as data.
func TestChartsBindOnlyPageFunctions(t *testing.T) {
	charttest.NeedAssets(t, CheckAssets())
	pages := map[string]*Page{}
	p, err := Lookup("loss").BuildPage(Tables{Main: {lossTable(t, "j", []float64{3, 2, 1.5, 1.3})}})
	if err != nil {
		t.Fatal(err)
	}
	pages["loss"] = p
	pages["simulation"] = simPage(t, Tables{
		Main:          {csvTable(t, schema.SimJobs, "sim_jobs.csv", simJobsCSV)},
		"allocations": {csvTable(t, schema.SimAllocations, "sim_allocations.csv", simAllocCSV)},
		"utilisation": {csvTable(t, schema.SimUtilisation, "sim_utilisation.csv", simUtilCSV)},
	})
	for kind, p := range pages {
		for _, c := range p.Charts() {
			js, err := c.options()
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Contains(js, []byte("__f__")) || regexp.MustCompile(`function\s*\(|=>`).Match(js) {
				t.Errorf("%s %s: code in the options: %s", kind, c.ID, js)
			}
			if len(c.functions) == 0 {
				t.Errorf("%s %s: no formatter bound", kind, c.ID)
			}
			for path, f := range c.functions {
				if !strings.Contains(pageJS, "\n    "+f+": function") {
					t.Errorf("%s %s: %s binds %s, which page.js lacks", kind, c.ID, path, f)
				}
			}
		}
	}
}
