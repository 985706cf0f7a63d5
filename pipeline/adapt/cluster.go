package adapt

import (
	"errors"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/schema/col"
	"github.com/optimus-sched/optimus/io/table"
	"github.com/optimus-sched/optimus/pipeline"
)

// Resources lists the resource columns of a cluster table: every float
// column other than node, in table order.
func Resources(cluster *table.Table) []string { return ResourceColumns(cluster, schema.Cluster) }

// ResourceColumns lists a table's float columns that its schema does not
// declare by name, in table order: the resource columns of a cluster or a
// plan.
func ResourceColumns(t *table.Table, s *schema.Table) []string {
	var names []string
	for i, name := range t.ColumnNames() {
		if _, declared := s.Column(name); declared {
			continue
		}
		if t.Field(i).Type.ID() == arrow.FLOAT64 {
			names = append(names, name)
		}
	}
	return names
}

// Cluster reads a cluster table and checks that it can hold anything: it
// has nodes and some capacity. The errors name the cluster's file and exit
// 2.
func Cluster(cluster *table.Table) (*pipeline.Cluster, error) {
	c := &pipeline.Cluster{Source: cluster.Source, Resources: Resources(cluster), Nodes: cluster.Strings(col.Node)}
	nr := len(c.Resources)
	c.Capacity = make([][]float64, cluster.NumRows())
	flat := make([]float64, cluster.NumRows()*nr)
	for i := range c.Capacity {
		c.Capacity[i] = flat[i*nr : (i+1)*nr]
	}
	for r, name := range c.Resources {
		caps, err := values(cluster, name, "every node needs its capacity of each resource (0 for none)")
		if err != nil {
			return nil, err
		}
		for i, x := range caps {
			c.Capacity[i][r] = x
		}
	}
	if err := c.Check(); err != nil {
		var ce *pipeline.ClusterError
		if errors.As(err, &ce) {
			return nil, table.Errorf(ce.Source, "%s", ce.Msg)
		}
		return nil, err
	}
	return c, nil
}

// Demands reads, for each resource, the per-task demand column
// <prefix><resource> of a jobs (or predictions, allocation) table:
// demand[row][r]. A missing column is an error naming it (exit 2).
func Demands(jobs *table.Table, prefix string, c *pipeline.Cluster) ([][]float64, error) {
	nr := len(c.Resources)
	demand := make([][]float64, jobs.NumRows())
	flat := make([]float64, jobs.NumRows()*nr)
	for i := range demand {
		demand[i] = flat[i*nr : (i+1)*nr]
	}
	for r, name := range c.Resources {
		column := prefix + name
		if !jobs.Has(column) {
			return nil, &table.Error{Source: jobs.Source, Column: column,
				Msg: fmt.Sprintf("missing: the cluster (%s) has resource %q, so every job needs worker_%s and ps_%s demands", c.Source, name, name, name)}
		}
		ds, err := values(jobs, column, "every job needs its tasks' demand of each resource (0 for none)")
		if err != nil {
			return nil, err
		}
		for i, x := range ds {
			demand[i][r] = x
		}
	}
	return demand, nil
}

// ForeignDemands explains, per job, any positive demand for a resource the
// cluster does not have ("" for none).
func ForeignDemands(jobs *table.Table, resources []string) []string {
	known := map[string]bool{}
	for _, r := range resources {
		known[r] = true
	}
	why := make([]string, jobs.NumRows())
	for _, name := range jobs.ColumnNames() {
		var res string
		switch {
		case strings.HasPrefix(name, col.PrefixWorker):
			res = strings.TrimPrefix(name, col.PrefixWorker)
		case strings.HasPrefix(name, col.PrefixPS):
			res = strings.TrimPrefix(name, col.PrefixPS)
		default:
			continue
		}
		if known[res] || jobs.Field(jobs.Index(name)).Type.ID() != arrow.FLOAT64 {
			continue
		}
		for i, v := range jobs.Float64s(name) {
			if v > 0 && why[i] == "" {
				why[i] = fmt.Sprintf("its tasks need %s (%s %g), which no node of the cluster has", res, name, v)
			}
		}
	}
	return why
}
