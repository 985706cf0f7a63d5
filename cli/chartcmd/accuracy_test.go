package chartcmd_test

import (
	"html"
	"strings"
	"testing"

	"github.com/optimus-sched/optimus/chart"
	"github.com/optimus-sched/optimus/chart/charttest"
)

// The testbed's resnet50-b has a poor fit (R² -0.53): predict takes its
// family's median instead, which the page must say, naming resnet50-a, and
// draw its own curve as the poor fit it is.
func TestLossPageLabelsABorrowedFit(t *testing.T) {
	charttest.NeedAssets(t, chart.CheckAssets())
	d := pipeline(t)
	page := string(draw(t, kindArgs(d)["loss"], t.TempDir()+"/loss.html"))
	for _, want := range []string{
		`"subtext":"4 points: 4 used, 0 dropped (0 non-finite); fit poor, R² -0.526\npredicted to converge at epoch 52 (p10 31, p90 73),\nborrowed from its model family (resnet50-a), not its own fit"`,
		`"name":"fitted curve (poor fit, not used)"`,
		`family's convergence: epoch 52`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the loss page lacks %s", want)
		}
	}
	if strings.Contains(page, `"name":"dropped (outlier)","type":"scatter","data":[]`) {
		t.Error("an empty outliers series (legend entry) is drawn")
	}
}

// The simulation page of fitted and oracle runs has the predictions'
// accuracy for each policy and knowledge, and the headline beside the
// paper's figures; the footer names the optimus version.
func TestSimulationPageAccuracy(t *testing.T) {
	charttest.NeedAssets(t, chart.CheckAssets())
	d := pipeline(t)
	b := draw(t, kindArgs(d)["simulation"], t.TempDir()+"/sim.html")
	page := html.UnescapeString(string(b))
	for _, want := range []string{
		`<section id="accuracy">`, `<td>optimus</td><td>fitted</td>`, `<td>optimus</td><td>oracle</td>`,
		`mean JCT, × shorter than drf`, `paper 2.39×`, `makespan (min–max over seeds)`, `Made by optimus `, `<nav class="toc"`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the simulation page lacks %s", want)
		}
	}
	ids := map[string]bool{}
	for _, c := range readManifest(t, b) {
		ids[c.ID] = true
		if c.ID == "accuracy_1" {
			if len(c.Series) != 9 { // 4 policies × 2 knowledge, and the diagonal
				t.Errorf("accuracy_1 series %v", c.Series)
			}
			for _, s := range c.Series[:8] {
				if s.Data == 0 {
					t.Errorf("accuracy_1: %s has no rounds", s.Name)
				}
			}
		}
	}
	if !ids["accuracy_1"] || !ids["accuracy_2"] {
		t.Errorf("charts %v, want accuracy_1 and accuracy_2", ids)
	}
}
