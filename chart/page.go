package chart

import (
	"bytes"
	"encoding/json"
	"html/template"
	"io"
	"regexp"
	"strings"

	"github.com/go-echarts/go-echarts/v2/render"
)

// Page is one HTML page: a title, some text and sections of tables and
// charts.
type Page struct {
	Title    string
	Lead     []string // paragraphs under the title
	Sections []*Section
}

// Section is a heading with text, an optional table and charts.
type Section struct {
	ID      string // HTML anchor
	Heading string
	Text    []string
	Grid    *Grid
	Charts  []*Chart
	// Empty, when set, says why the section has nothing to draw.
	Empty string
}

// Grid is an HTML table.
type Grid struct {
	Header []string
	Rows   [][]string
	// Numeric columns are right-aligned.
	Numeric []bool
}

// Chart is one go-echarts chart with a fixed ID, and what it is meant to
// draw: its series and their data counts, which the page lists (in a JSON
// manifest) so that a browser check can compare them with what echarts
// drew.
type Chart struct {
	ID     string
	Series []SeriesCount
	r      render.Renderer
}

// SeriesCount is the name and the number of data items of one series.
type SeriesCount struct {
	Name string `json:"name"`
	Data int    `json:"data"`
}

// Charts lists every chart of the page in order.
func (p *Page) Charts() []*Chart {
	var out []*Chart
	for _, s := range p.Sections {
		out = append(out, s.Charts...)
	}
	return out
}

type manifestEntry struct {
	ID     string        `json:"id"`
	Series []SeriesCount `json:"series"`
}

type chartHTML struct {
	Element template.HTML
	Script  template.HTML
}

type sectionHTML struct {
	*Section
	Rendered []chartHTML
}

// Render writes the page as one self-contained HTML document, echarts
// inlined (ErrNoAssets in a build without it). Identical pages give
// identical bytes.
func (p *Page) Render(w io.Writer) error {
	if err := CheckAssets(); err != nil {
		return err
	}
	var sections []sectionHTML
	manifest := []manifestEntry{} // [] rather than null for a page without charts
	for _, s := range p.Sections {
		sh := sectionHTML{Section: s}
		for _, c := range s.Charts {
			sn := c.r.RenderSnippet()
			sh.Rendered = append(sh.Rendered, chartHTML{
				Element: template.HTML(sn.Element),
				Script:  template.HTML(safeScript(sn.Script)),
			})
			manifest = append(manifest, manifestEntry{ID: c.ID, Series: c.Series})
		}
		sections = append(sections, sh)
	}
	var mbuf bytes.Buffer
	enc := json.NewEncoder(&mbuf)
	enc.SetEscapeHTML(true) // no "<" in the manifest, so it cannot end its script element
	if err := enc.Encode(manifest); err != nil {
		return err
	}
	var buf bytes.Buffer
	err := pageTemplate.Execute(&buf, map[string]any{
		"Page":     p,
		"Sections": sections,
		"Echarts":  template.JS(echartsJS),
		"Manifest": template.JS(strings.TrimSpace(mbuf.String())),
		"Version":  EchartsVersion,
	})
	if err != nil {
		return err
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// safeScript keeps a go-echarts script element from being ended or
// changed by its data (a job called "</script>", say): inside the element,
// every "</", "<!--" and "<script" (in any case) but the closing tag becomes
// "<\/", "<\!--", "<\script", which JavaScript strings read alike.
func safeScript(s string) string {
	const open, end = `<script type="text/javascript">`, `</script>`
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, open) && strings.HasSuffix(s, end) {
		s = s[len(open) : len(s)-len(end)]
	}
	return open + scriptHazard.ReplaceAllString(s, `<\$1`) + end
}

var scriptHazard = regexp.MustCompile(`(?i)<(/|!--|script)`)

var pageTemplate = template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Page.Title}}</title>
<style>
body { font-family: system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; margin: 24px auto; max-width: 1280px; padding: 0 16px; color: #222; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.25em; margin-top: 1.6em; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
p { line-height: 1.45; max-width: 70em; }
table.grid { border-collapse: collapse; font-size: 0.85em; margin: 8px 0 16px; }
table.grid th, table.grid td { border: 1px solid #ddd; padding: 4px 8px; vertical-align: top; }
table.grid th { background: #f4f4f4; text-align: left; }
table.grid td.num { text-align: right; font-variant-numeric: tabular-nums; }
table.grid td:last-child { min-width: 18em; }
.charts { display: flex; flex-wrap: wrap; gap: 8px; }
.charts .container { border: 1px solid #eee; }
.empty { padding: 16px; background: #fff8e1; border: 1px solid #f0d98c; }
footer { margin-top: 2em; font-size: 0.8em; color: #777; }
</style>
<script type="text/javascript">{{.Echarts}}</script>
</head>
<body>
<h1>{{.Page.Title}}</h1>
{{range .Page.Lead}}<p>{{.}}</p>
{{end}}
{{- range .Sections}}
<section id="{{.ID}}">
{{if .Heading}}<h2>{{.Heading}}</h2>
{{end}}
{{- range .Text}}<p>{{.}}</p>
{{end}}
{{- if .Empty}}<p class="empty">{{.Empty}}</p>
{{end}}
{{- with .Grid}}<table class="grid">
<thead><tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{- $num := .Numeric}}
{{- range .Rows}}
<tr>{{range $i, $c := .}}<td{{if index $num $i}} class="num"{{end}}>{{$c}}</td>{{end}}</tr>
{{- end}}
</tbody>
</table>
{{end}}
{{- if .Rendered}}<div class="charts">
{{range .Rendered}}{{.Element}}
{{.Script}}
{{end}}</div>
{{end}}
</section>
{{- end}}
<footer>Made by optimus with go-echarts and echarts {{.Version}} (embedded: this page needs no network).</footer>
<script type="application/json" id="optimus-charts">{{.Manifest}}</script>
</body>
</html>
`))
