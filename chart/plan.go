package chart

import (
	"fmt"
	"strings"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"

	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/schema/col"
	"github.com/optimus-sched/optimus/io/table"
)

func init() {
	register(&Kind{
		Name:  "plan",
		Short: "Which job's PS and workers sit on which node, and how full each node is",
		Long: `A grid of nodes by jobs (optimus place's plan): each cell counts the job's parameter
servers (P) and workers (W) on the node. With --cluster, every node of the cluster is shown
(empty ones too) with a chart of how much of each of its resources the plan uses.`,
		Example: `  optimus chart plan -i plan.parquet --cluster tb/cluster.parquet -o plan.html`,
		Inputs: []Input{
			{Flag: Main, Schema: schema.Plan, Required: true, Doc: "plan (optimus place)"},
			{Flag: "cluster", Schema: schema.Cluster, Doc: "the cluster's nodes, for empty nodes and how full each is"},
		},
		Build: buildPlan,
	})
}

func buildPlan(in Tables) (*Page, error) {
	plan := in.One(Main)
	const title = "Plan: tasks on nodes"
	if plan.NumRows() == 0 {
		return emptyPage(title, plan), nil
	}
	secs, err := planSections(plan, in.One("cluster"))
	if err != nil {
		return nil, err
	}
	return &Page{Title: title, Headline: planHeadline(plan), Lead: []string{
		"Where optimus place put every job's parameter servers (P) and workers (W), and how full that leaves each node.",
	}, Sections: secs}, nil
}

// maxLabelledNodes is the most nodes (columns) of the plan grid whose
// cells are labelled: 1,040 px of plot over 40 px a label.
const maxLabelledNodes = 26

// maxListed is the most jobs a sentence names.
const maxListed = 20

func planSections(plan, cluster *table.Table) ([]*Section, error) {
	jobCol, role, node := plan.Strings(col.Job), plan.Strings(col.Role), plan.Strings(col.Node)
	placed := plan.Valid(col.Node)
	status, reason := plan.Strings(col.Status), plan.Strings(col.Reason)
	var nodes []string
	nodeIdx := map[string]int{}
	addNode := func(n string) {
		if _, ok := nodeIdx[n]; !ok {
			nodeIdx[n] = len(nodes)
			nodes = append(nodes, n)
		}
	}
	if cluster != nil {
		for _, n := range cluster.Strings(col.Node) {
			addNode(n)
		}
	}
	jobs, _ := groups(jobCol)
	jobIdx := rowIndex(jobs)
	type cell struct{ ps, workers int }
	cells := map[[2]int]*cell{}
	var waiting []string
	for i := range jobCol {
		if !placed[i] {
			w := jobCol[i] + " (" + status[i]
			if reason[i] != "" {
				w += ": " + reason[i]
			}
			waiting = append(waiting, w+")")
			continue
		}
		if _, ok := nodeIdx[node[i]]; !ok {
			if cluster != nil {
				return nil, plan.Errorf(col.Node, i, "node %q is not in the cluster table %s", node[i], sourceName(cluster))
			}
			addNode(node[i])
		}
		k := [2]int{nodeIdx[node[i]], jobIdx[jobCol[i]]}
		c := cells[k]
		if c == nil {
			c = &cell{}
			cells[k] = c
		}
		if role[i] == "ps" {
			c.ps++
		} else {
			c.workers++
		}
	}
	// Up to MaxJobCharts jobs the grid lists them all on the nodes of the
	// plan; beyond, it lists every job too but shows planWindowJobs at a
	// time (planWindow).
	gridJobs, gridNodes := jobs, nodes
	var note string
	var win *planWin
	if len(jobs) > MaxJobCharts {
		used := make([][2]int, 0, len(cells))
		for k := range cells {
			used = append(used, k)
		}
		win = planWindow(len(jobs), len(nodes), used)
		gridNodes = make([]string, len(win.order))
		for i, x := range win.order {
			gridNodes[i] = nodes[x]
		}
		note = fmt.Sprintf("The grid lists all %d jobs (in plan order), %d at a time: drag or stretch the slider at the right for other jobs, the one below for other nodes. It shows the %d nodes the jobs use, each in the order of the first job on it, so later jobs sit further right.", len(jobs), win.jobs, len(gridNodes))
	}
	gridX := rowIndex(gridNodes)
	var data []opts.HeatMapData
	maxTasks := 1
	for x := range nodes {
		gx, ok := gridX[nodes[x]]
		if !ok {
			continue
		}
		for y := range gridJobs {
			c := cells[[2]int{x, y}]
			if c == nil {
				continue
			}
			label := ""
			if c.ps > 0 {
				label = fmt.Sprintf("%dP", c.ps)
			}
			if c.workers > 0 {
				label = strings.TrimSpace(label + fmt.Sprintf(" %dW", c.workers))
			}
			maxTasks = max(maxTasks, c.ps+c.workers)
			data = append(data, opts.HeatMapData{Name: label + "|" + jobs[y] + " on " + nodes[x], Value: []int{gx, y, c.ps + c.workers}})
		}
	}
	placedJobs, usedNodes := map[int]bool{}, map[int]bool{}
	for k := range cells {
		placedJobs[k[1]], usedNodes[k[0]] = true, true
	}
	subtitle := fmt.Sprintf("%d tasks of %d jobs placed on %d of %d nodes; %d jobs not placed (%s)", len(jobCol)-len(waiting), len(placedJobs), len(usedNodes), len(nodes), len(jobs)-len(placedJobs), sourceName(plan))
	id := idFor("plan", 1)
	rows, scaleRight, grid := len(gridJobs), "10", opts.Grid{Top: "70", Bottom: "60", Left: "110", Right: "90"}
	var zoom []slider
	if win != nil {
		// Two lines, to fit an 800 px window.
		subtitle = fmt.Sprintf("%s\njobs 1-%d of %d shown first: the slider at the right shows the rest", subtitle, win.jobs, len(jobs))
		rows, scaleRight, grid.Top, grid.Bottom, grid.Right = win.jobs, "50", "90", "100", "150"
		zoom = win.zoom()
	}
	height := fmt.Sprintf("%dpx", 170+28*rows)
	hm := charts.NewHeatMap()
	hm.SetGlobalOptions(append(base(id, "Tasks per node and job", subtitle, wideW, height),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "item"}),
		charts.WithGridOpts(grid),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(false)}),
		charts.WithXAxisOpts(opts.XAxis{Type: "category", Data: gridNodes, Name: "node", NameLocation: "middle", NameGap: 44,
			AxisLabel: &opts.AxisLabel{Rotate: 30, Interval: everyLabel(len(gridNodes))}, SplitArea: &opts.SplitArea{Show: opts.Bool(true)}}),
		charts.WithYAxisOpts(opts.YAxis{Type: "category", Data: gridJobs, Inverse: opts.Bool(true),
			AxisLabel: &opts.AxisLabel{Interval: "0"}, SplitArea: &opts.SplitArea{Show: opts.Bool(true)}}),
		charts.WithVisualMapOpts(opts.VisualMap{Type: "continuous", Min: 0, Max: float32(maxTasks), Calculable: opts.Bool(false),
			Text: []string{plural(maxTasks, "task"), "0"}, Orient: "vertical", Right: scaleRight, Top: "middle",
			InRange: &opts.VisualMapInRange{Color: []string{"#e0ecff", "#5470c6"}}}),
	)...)
	hm.SetXAxis(gridNodes)
	// A cell's "2P 3W" needs about 40 px: with more nodes than that allows
	// in the chart's width the cells are coloured only (the scale and the
	// tooltip give the numbers).
	hm.AddSeries("tasks", data, charts.WithLabelOpts(opts.Label{Show: opts.Bool(len(gridNodes) <= maxLabelledNodes), Color: "#111"}))
	text := []string{"Each cell: the job's parameter servers (P) and workers (W) on the node; darker holds more tasks."}
	if len(gridNodes) > maxLabelledNodes {
		text[0] = fmt.Sprintf("Each cell: the job's parameter servers and workers on the node, darker for more tasks (the scale on the right); with %d nodes the cells are too narrow to label, so hover one for its numbers.", len(gridNodes))
	}
	if note != "" {
		text = append(text, note)
	}
	if len(waiting) > maxListed {
		text = append(text, fmt.Sprintf("Not placed (%d jobs; the first %d): %s; the decisions table and the plan table list them all.", len(waiting), maxListed, strings.Join(waiting[:maxListed], "; ")))
	} else if len(waiting) > 0 {
		text = append(text, "Not placed: "+strings.Join(waiting, "; ")+".")
	}
	// The cell's name is "label|job on node".
	cellsChart := counted(id, hm, &hm.BaseConfiguration).bind("tooltip.formatter", "planCellTooltip").bind("series.0.label.formatter", "planCellLabel")
	if zoom != nil {
		cellsChart.raw = map[string]any{"dataZoom": zoom}
		cellsChart.bind("dataZoom.1.labelFormatter", "sliderLabel")
	}
	sec := &Section{ID: "plan", Heading: "Tasks per node", Text: text, Charts: []*Chart{cellsChart}}
	secs := []*Section{sec}
	if cluster != nil {
		fill, err := nodeFillSection(plan, cluster, nodes, nodeIdx)
		if err != nil {
			return nil, err
		}
		secs = append(secs, fill)
	}
	return secs, nil
}

// nodeFillSection charts the share of each resource of each node the plan
// uses.
func nodeFillSection(plan, cluster *table.Table, nodes []string, nodeIdx map[string]int) (*Section, error) {
	res := resources(cluster)
	if err := needColumns(plan, "how full each node is", res...); err != nil {
		return nil, err
	}
	capIdx := rowIndex(cluster.Strings(col.Node))
	placed, node := plan.Valid(col.Node), plan.Strings(col.Node)
	id := idFor("nodefill", 1)
	if len(nodes) > maxNodeBars {
		shares := make([][]float64, len(res))
		for k, r := range res {
			caps, vals := numbers(cluster, r), numbers(plan, r)
			used := make([]float64, len(nodes))
			for i := range node {
				if placed[i] {
					used[nodeIdx[node[i]]] += vals[i]
				}
			}
			shares[k] = make([]float64, len(nodes))
			for x, n := range nodes {
				if c := caps[capIdx[n]]; c > 0 {
					shares[k][x] = 100 * used[x] / c
				}
			}
		}
		return &Section{ID: "nodefill", Heading: "How full the nodes are",
			Text:   []string{fmt.Sprintf("With %d nodes, the number of nodes by the share of each resource the tasks placed on them use (0%%: nothing of it; a node without a resource, such as a CPU server's GPUs, counts at 0%%).", len(nodes))},
			Charts: []*Chart{nodeFillHistogram(id, res, shares, sourceName(cluster))}}, nil
	}
	bar := charts.NewBar()
	bar.SetGlobalOptions(append(base(id, "How full each node is", fmt.Sprintf("share of each node's capacity the plan uses (%s)", sourceName(cluster)), wideW, wideH),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis", AxisPointer: &opts.AxisPointer{Type: "shadow"}}),
		legendBottom(), gridFor("70"),
		charts.WithXAxisOpts(opts.XAxis{Type: "category", Name: "node", NameLocation: "middle", NameGap: 50,
			AxisLabel: &opts.AxisLabel{Rotate: 30, Interval: everyLabel(len(nodes))}}),
		yValueAxis("used (% of the node's capacity)", 0, 100, false),
	)...)
	bar.SetXAxis(nodes)
	for k, r := range res {
		caps := numbers(cluster, r)
		used := make([]float64, len(nodes))
		vals := numbers(plan, r)
		for i := range node {
			if placed[i] {
				used[nodeIdx[node[i]]] += vals[i]
			}
		}
		var d []opts.BarData
		for x, n := range nodes {
			v := 0.0
			if c := caps[capIdx[n]]; c > 0 {
				v = round(100*used[x]/c, 4)
			}
			d = append(d, opts.BarData{Value: v})
		}
		bar.AddSeries(r, d, charts.WithItemStyleOpts(opts.ItemStyle{Color: colour(k)}))
	}
	return &Section{ID: "nodefill", Heading: "How full each node is",
		Text:   []string{"For each node, the share of each of its resources that the tasks placed on it use (a node without a resource, such as a CPU server's GPUs, shows 0)."},
		Charts: []*Chart{counted(id, bar, &bar.BaseConfiguration).bind("tooltip.valueFormatter", "percent")}}, nil
}
