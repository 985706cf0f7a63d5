package place_test

import (
	"fmt"
	"strings"

	"github.com/optimus-sched/optimus/place"
)

// Place an allocation (solve's decisions in solve's example: three jobs'
// PS and workers) on four servers of 4 GPUs and 16 cores, with the
// paper's placement (the fewest servers holding an even split of each
// job's tasks) and with Kubernetes' spread. A worker takes a GPU and 2
// cores, a PS 4 cores.
func ExamplePlace() {
	p := &place.Problem{Resources: []string{"gpu", "cpu"}}
	for _, n := range []string{"n1", "n2", "n3", "n4"} {
		p.Nodes = append(p.Nodes, n)
		p.Capacity = append(p.Capacity, []float64{4, 16})
	}
	for _, j := range []struct {
		name        string
		ps, workers int
	}{{"compute", 3, 9}, {"network", 5, 3}, {"small", 1, 2}} {
		p.Jobs = append(p.Jobs, place.Job{
			Name: j.name, PS: j.ps, Workers: j.workers, Status: place.Running,
			PSDemand: []float64{0, 4}, WorkerDemand: []float64{1, 2},
		})
	}
	for _, policy := range []place.Policy{place.Optimus, place.Spread} {
		res, err := place.Place(p, place.Options{Policy: policy})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s:\n", policy)
		for i, jp := range res.Jobs {
			// Where the job's tasks are: node PS+workers.
			perNode := map[int][2]int{}
			for _, t := range res.Tasks {
				if t.Job == i {
					c := perNode[t.Node]
					c[t.Role]++
					perNode[t.Node] = c
				}
			}
			var where []string
			for n, name := range p.Nodes {
				if c, ok := perNode[n]; ok {
					where = append(where, fmt.Sprintf("%s %d+%d", name, c[place.PS], c[place.Worker]))
				}
			}
			fmt.Printf("  %-7s servers %d, %3.0f%% of its traffic across them, %s: %s\n",
				p.Jobs[i].Name, jp.Servers, 100*jp.CrossTraffic, jp.Method, strings.Join(where, ", "))
		}
	}
	// Output:
	// optimus:
	//   compute servers 3,  67% of its traffic across them, even: n1 1+3, n2 1+3, n3 1+3
	//   network servers 4,  80% of its traffic across them, even: n1 1+1, n2 1+1, n3 1+1, n4 2+0
	//   small   servers 1,   0% of its traffic across them, even: n4 1+2
	// spread:
	//   compute servers 4,  81% of its traffic across them, spread: n1 0+3, n2 2+2, n3 1+1, n4 0+3
	//   network servers 4,  80% of its traffic across them, spread: n1 1+1, n2 0+1, n3 2+0, n4 2+1
	//   small   servers 3, 100% of its traffic across them, spread: n1 1+0, n2 0+1, n3 0+1
}
