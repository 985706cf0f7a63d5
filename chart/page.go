package chart

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"html/template"
	"io"
	"strings"
	"sync"

	"github.com/go-echarts/go-echarts/v2/charts"
)

// Page is one HTML page: a title, some text and sections of tables and
// charts.
type Page struct {
	Title string
	// Headline are the page's key numbers, in a row of boxes above the
	// lead.
	Headline []Figure
	Lead     []string // paragraphs under the title
	Sections []*Section
}

// Figure is one key number of a page: what it is, its value and what it
// covers (how many jobs, which seeds), so that it cannot be read alone.
type Figure struct {
	Label, Value, Note string
}

// Version is the optimus version a page names in its footer; the commands
// set it (versioncmd), and a page drawn without them says "devel".
var Version = "devel"

// tocSections is the number of headed sections from which a page lists
// them in a table of contents.
const tocSections = 3

// TOC lists the page's headed sections when there are several.
func (p *Page) TOC() []*Section {
	var out []*Section
	for _, s := range p.Sections {
		if s.Heading != "" && s.ID != "" {
			out = append(out, s)
		}
	}
	if len(out) < tocSections {
		return nil
	}
	return out
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
	// Numeric columns are right-aligned, and sort as numbers.
	Numeric []bool
}

// interactiveRows is the number of rows from which a grid scrolls in a
// box of its own, with a filter and sortable columns (page.js), rather
// than making the page as long as the table.
const interactiveRows = 25

// Interactive reports whether the grid scrolls, filters and sorts.
func (g *Grid) Interactive() bool { return len(g.Rows) >= interactiveRows }

// Chart is one go-echarts chart with a fixed ID, and what it is meant to
// draw: its series and their data counts, which the page lists (in a JSON
// manifest) so that a browser check can compare them with what echarts
// drew.
type Chart struct {
	ID     string
	Series []SeriesCount
	c      echartsChart
	bc     *charts.BaseConfiguration
	// functions binds paths in the options ("tooltip.formatter") to
	// functions of the page's script (page.js), by name.
	functions map[string]string
	// raw replaces top-level options with values of types go-echarts does
	// not have (a slider's position: its opts.DataZoom has no fields for it).
	raw map[string]any
}

// echartsChart is what every go-echarts chart type has: Validate completes
// its options, JSON returns them.
type echartsChart interface {
	Validate()
	JSON() map[string]any
}

// SeriesCount is the name and the number of data items of one series.
type SeriesCount struct {
	Name string `json:"name"`
	Data int    `json:"data"`
}

// bind makes the page's script set the option at path to its function
// name (a key of page.js' formatters) before echarts draws the chart.
func (c *Chart) bind(path, name string) *Chart {
	if c.functions == nil {
		c.functions = map[string]string{}
	}
	c.functions[path] = name
	return c
}

// options is the chart's options block: its echarts options as data and
// the functions to bind, JSON with every "<", ">" and "&" escaped (so that
// nothing in it can end its script element or open a comment) and
// U+2028/U+2029 escaped (encoding/json always does).
func (c *Chart) options() ([]byte, error) {
	c.c.Validate()
	option := c.c.JSON()
	for k, v := range c.raw {
		option[k] = v
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(true)
	err := enc.Encode(struct {
		Option    map[string]any    `json:"option"`
		Functions map[string]string `json:"functions,omitempty"`
	}{option, c.functions})
	return bytes.TrimSpace(buf.Bytes()), err
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
	ID            string
	Width, Height string
	Options       template.JS
}

type sectionHTML struct {
	*Section
	Rendered []chartHTML
}

// Render writes the page as one self-contained HTML document, echarts
// inlined (ErrNoAssets in a build without it). Identical pages give
// identical bytes.
//
// The page runs two scripts, both constant: echarts and page.js. Data
// reaches the page only as JSON data blocks (type="application/json",
// which browsers never run) and as text that html/template escapes; no
// go-echarts template runs, since go-echarts turns any "__f__...__f__" in
// its output, data included, into raw JavaScript. A Content-Security-Policy
// allows exactly those two scripts by their hashes (see csp).
func (p *Page) Render(w io.Writer) error {
	if err := CheckAssets(); err != nil {
		return err
	}
	var sections []sectionHTML
	manifest := []manifestEntry{} // [] rather than null for a page without charts
	for _, s := range p.Sections {
		sh := sectionHTML{Section: s}
		for _, c := range s.Charts {
			opt, err := c.options()
			if err != nil {
				return err
			}
			sh.Rendered = append(sh.Rendered, chartHTML{ID: c.ID, Width: c.bc.Initialization.Width, Height: c.bc.Initialization.Height,
				Options: template.JS(opt)})
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
	err := pageTemplate().Execute(&buf, map[string]any{
		"Page":     p,
		"Sections": sections,
		"CSP":      csp(),
		"Echarts":  template.JS(echartsJS()),
		"PageJS":   template.JS(pageJS),
		"Manifest": template.JS(strings.TrimSpace(mbuf.String())),
		"Version":  EchartsVersion,
		"Optimus":  Version,
	})
	if err != nil {
		return err
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// pageJS draws the charts from their options blocks.
//
//go:embed page.js
var pageJS string

// csp is the page's Content-Security-Policy: nothing may load or run but
// the two inline scripts, named by their SHA-256 (so an injected script or
// inline handler is refused even if markup got in); styles may be inline
// (the page's own style element and the chart containers' sizes, and
// echarts writes its tooltips with style attributes); images only from
// data: and blob: URLs (echarts' save-as-PNG); no plugins, no <base>, no
// form submission. docs/charts.md says the same.
var csp = sync.OnceValue(func() string {
	return "default-src 'none'; script-src " + scriptHash(echartsJS()) + " " + scriptHash(pageJS) +
		"; style-src 'unsafe-inline'; img-src data: blob:; object-src 'none'; base-uri 'none'; form-action 'none'"
})

// scriptHash is the CSP source of an inline script: 'sha256-' and the
// base64 of the SHA-256 of its text.
func scriptHash(js string) string {
	h := sha256.Sum256([]byte(js))
	return "'sha256-" + base64.StdEncoding.EncodeToString(h[:]) + "'"
}

// pageTemplate is parsed when first used (not at every start).
var pageTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Parse(`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{{.CSP}}">
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
.gridbox { max-height: 640px; overflow: auto; border: 1px solid #ddd; margin: 8px 0 16px; }
.gridbox table.grid { margin: 0; }
table.grid.interactive th { position: sticky; top: 0; cursor: pointer; }
table.grid th[aria-sort=ascending]::after { content: " \25B2"; }
table.grid th[aria-sort=descending]::after { content: " \25BC"; }
.gridtools { font-size: 0.85em; color: #555; margin-top: 8px; }
.charts { display: flex; flex-wrap: wrap; gap: 8px; }
.charts .container { border: 1px solid #eee; max-width: 100%; box-sizing: border-box; }
.charts .item { max-width: 100%; }
.headline { display: flex; flex-wrap: wrap; gap: 8px; margin: 12px 0; }
.headline div { border: 1px solid #ddd; border-radius: 4px; padding: 6px 12px; min-width: 9em; max-width: 22em; }
.headline .v { font-size: 1.35em; font-weight: 600; }
.headline .l, .headline .n { font-size: 0.8em; color: #555; }
nav.toc { font-size: 0.9em; }
nav.toc ol { margin: 4px 0; padding-left: 1.6em; columns: 2; max-width: 60em; }
.gridwide { max-width: 100%; overflow-x: auto; }
.empty { padding: 16px; background: #fff8e1; border: 1px solid #f0d98c; }
footer { margin-top: 2em; font-size: 0.8em; color: #777; }
</style>
<script type="text/javascript">{{.Echarts}}</script>
</head>
<body>
<h1>{{.Page.Title}}</h1>
{{with .Page.Headline}}<div class="headline">{{range .}}<div><div class="l">{{.Label}}</div><div class="v">{{.Value}}</div>{{if .Note}}<div class="n">{{.Note}}</div>{{end}}</div>{{end}}</div>
{{end}}
{{- range .Page.Lead}}<p>{{.}}</p>
{{end}}
{{- with .Page.TOC}}<nav class="toc" aria-label="contents"><ol>{{range .}}<li><a href="#{{.ID}}">{{.Heading}}</a></li>{{end}}</ol></nav>
{{end}}
{{- range .Sections}}
<section id="{{.ID}}">
{{if .Heading}}<h2>{{.Heading}}</h2>
{{end}}
{{- range .Text}}<p>{{.}}</p>
{{end}}
{{- if .Empty}}<p class="empty">{{.Empty}}</p>
{{end}}
{{- with .Grid}}{{if .Interactive}}<div class="gridtools"><input type="search" class="gridfilter" placeholder="filter rows" aria-label="filter rows"> <span class="gridcount">{{len .Rows}} rows</span>; click a heading to sort</div>
<div class="gridbox">{{else}}<div class="gridwide">{{end}}<table class="grid{{if .Interactive}} interactive{{end}}">
<thead><tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr></thead>
<tbody>
{{- $num := .Numeric}}
{{- range .Rows}}
<tr>{{range $i, $c := .}}<td{{if index $num $i}} class="num"{{end}}>{{$c}}</td>{{end}}</tr>
{{- end}}
</tbody>
</table>
</div>
{{end}}
{{- if .Rendered}}<div class="charts">
{{range .Rendered}}<div class="container">
<div class="item" id="{{.ID}}" style="width:{{.Width}};height:{{.Height}};"></div>
</div>
<script type="application/json" id="options-{{.ID}}">{{.Options}}</script>
{{end}}</div>
{{end}}
</section>
{{- end}}
<footer>Made by optimus {{.Optimus}} with go-echarts and echarts {{.Version}} (embedded: this page needs no network).</footer>
<script type="application/json" id="optimus-charts">{{.Manifest}}</script>
<script>{{.PageJS}}</script>
</body>
</html>
`))
})
