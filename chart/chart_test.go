package chart

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
)

func lossTable(t *testing.T, job string, values []float64) *table.Table {
	t.Helper()
	tb := table.New(schema.Loss, len(values))
	jobs := make([]string, len(values))
	steps := make([]int64, len(values))
	for i := range values {
		jobs[i], steps[i] = job, int64(100*(i+1))
	}
	tb.SetStrings("job", jobs, nil)
	tb.SetInt64s("step", steps, nil)
	tb.SetFloat64s("value", values, nil)
	tb.Source = "loss.csv"
	c, err := table.Conform(tb)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The kinds are registered once each, with a main input first.
func TestKinds(t *testing.T) {
	var names []string
	for _, k := range Kinds() {
		names = append(names, k.Name)
		if k.Inputs[0].Flag != Main || !k.Inputs[0].Required {
			t.Errorf("%s: the first input must be the required main input", k.Name)
		}
	}
	if got := strings.Join(names, ","); got != "allocation,loss,plan,simulation,speed" {
		t.Errorf("kinds %s", got)
	}
}

func TestNiceCeilAndPickEven(t *testing.T) {
	for _, c := range []struct{ x, want float64 }{{0, 1}, {1, 1}, {3, 3}, {11, 15}, {32, 40}, {100, 100}, {101, 150}} {
		if got := niceCeil(c.x); got != c.want {
			t.Errorf("niceCeil(%v) = %v, want %v", c.x, got, c.want)
		}
	}
	if got := pickEven([]int{1, 2, 3, 4, 5, 6, 7, 8}, 4); len(got) != 4 || got[0] != 1 || got[3] != 8 {
		t.Errorf("pickEven: %v, want 4 values from 1 to 8", got)
	}
}

// A page draws at most MaxJobCharts per-job charts and says it left some
// out.
func TestManyJobsAreCapped(t *testing.T) {
	n := MaxJobCharts + 1
	tb := table.New(schema.Loss, n)
	jobs, steps, vals := make([]string, n), make([]int64, n), make([]float64, n)
	for i := range jobs {
		jobs[i], steps[i], vals[i] = fmt.Sprintf("job-%03d", i), 1, 1
	}
	tb.SetStrings("job", jobs, nil)
	tb.SetInt64s("step", steps, nil)
	tb.SetFloat64s("value", vals, nil)
	c, err := table.Conform(tb)
	if err != nil {
		t.Fatal(err)
	}
	page, err := Lookup("loss").BuildPage(Tables{Main: {c}})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(page.Charts()); got != MaxJobCharts {
		t.Errorf("%d charts, want %d", got, MaxJobCharts)
	}
	if text := strings.Join(page.Sections[0].Text, " "); !strings.Contains(text, fmt.Sprintf("first %d of %d jobs", MaxJobCharts, n)) {
		t.Errorf("the page does not say it left jobs out: %s", text)
	}
}

// A build without echarts renders no page (never one that is blank
// offline), and says how to get one.
func TestRenderWithoutAssets(t *testing.T) {
	saved := echartsJS
	defer func() { echartsJS = saved }()
	echartsJS = func() string { return "" }
	page, err := Lookup("loss").BuildPage(Tables{Main: {lossTable(t, "a", []float64{3, 2, 1.5, 1.3})}})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := page.Render(&buf); !errors.Is(err, ErrNoAssets) || buf.Len() != 0 {
		t.Fatalf("Render: %v and %d bytes, want ErrNoAssets and nothing", err, buf.Len())
	}
	if got, want := CheckAssets().Error(), "this build has no chart assets: run make assets, then rebuild"; got != want {
		t.Errorf("CheckAssets: %q, want %q", got, want)
	}
}

// A job of one point says "1 point", and a chart lists no outlier series
// when the fit dropped none (an empty legend entry).
func TestOnePointAndNoEmptyOutliers(t *testing.T) {
	page, err := Lookup("loss").BuildPage(Tables{Main: {lossTable(t, "one", []float64{2.5})}})
	if err != nil {
		t.Fatal(err)
	}
	js, err := page.Charts()[0].options()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(js), `"subtext":"1 point`) || strings.Contains(string(js), "1 points") {
		t.Errorf("subtitle of a one-point job: %s", js)
	}
	for _, s := range page.Charts()[0].Series {
		if s.Name == "dropped (outlier)" && s.Data == 0 {
			t.Error("an empty outlier series is drawn (and listed in the legend)")
		}
	}
	if plural(1, "worker") != "1 worker" || plural(2, "worker") != "2 workers" {
		t.Error("plural")
	}
}

// The report draws at most maxReportJobCharts convergence charts, and says
// so in place of the loss page's own note.
func TestReportCapsPerJobCharts(t *testing.T) {
	n := MaxJobCharts + 1
	tb := table.New(schema.Loss, n)
	jobs, steps, vals := make([]string, n), make([]int64, n), make([]float64, n)
	for i := range jobs {
		jobs[i], steps[i], vals[i] = fmt.Sprintf("job-%03d", i), 1, 1
	}
	tb.SetStrings("job", jobs, nil)
	tb.SetInt64s("step", steps, nil)
	tb.SetFloat64s("value", vals, nil)
	c, err := table.Conform(tb)
	if err != nil {
		t.Fatal(err)
	}
	page, err := Report(ReportInputs{Loss: c})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(page.Charts()); got != maxReportJobCharts {
		t.Errorf("%d charts, want %d", got, maxReportJobCharts)
	}
	text := strings.Join(page.Sections[len(page.Sections)-1].Text, " ")
	if !strings.Contains(text, "shows the first 12 jobs' charts") || strings.Contains(text, "Showing the first 60") {
		t.Errorf("the report's loss section: %s", text)
	}
}
