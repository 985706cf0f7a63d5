// Command kubeload measures optimus apply --executor kubernetes at scale on
// the real test API server (executor/kubernetes/ktest): it starts etcd and
// kube-apiserver, creates -nodes nodes, and for each -qps setting applies,
// into a fresh namespace, a plan of -jobs jobs of -workers tasks each
// (one pod per task, one headless Service per job), then prints the wall
// time, the writes the executor made, writes a second, the client-side
// throttle wait and this process's CPU. Pods are not waited for (--timeout
// -1: no kubelet runs). Results: benchmarks/kubernetes-load.md.
//
//	OPTIMUS_KUBE_APISERVER=... OPTIMUS_ETCD=... go run ./benchmarks/kubeload -qps 50,100,-1
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/optimus-sched/optimus/apply"
	"github.com/optimus-sched/optimus/executor"
	k8s "github.com/optimus-sched/optimus/executor/kubernetes"
	"github.com/optimus-sched/optimus/executor/kubernetes/ktest"
)

func main() {
	nodes := flag.Int("nodes", 1000, "nodes to create")
	jobs := flag.Int("jobs", 1000, "jobs in the plan")
	workers := flag.Int("workers", 10, "tasks (pods) per job")
	qpsList := flag.String("qps", "50,100,-1", "comma-separated client-side QPS settings, run in this order (negative: no limit)")
	burst := flag.Int("burst", 0, "burst (0: twice the QPS)")
	flag.Parse()
	if err := run(*nodes, *jobs, *workers, *qpsList, *burst); err != nil {
		fmt.Fprintln(os.Stderr, "kubeload:", err)
		os.Exit(1)
	}
}

func run(nodes, jobs, workers int, qpsList string, burst int) error {
	apiserver, etcd, missing := ktest.Binaries()
	if missing != "" {
		return fmt.Errorf("%s", missing)
	}
	srv, err := ktest.Start(apiserver, etcd)
	if err != nil {
		return err
	}
	defer srv.Stop()
	admin := srv.Admin()
	ctx := context.Background()
	began := time.Now()
	names := make([]string, nodes)
	for i := range names {
		names[i] = fmt.Sprintf("node-%04d", i)
	}
	if err := parallel(16, names, func(name string) error {
		n := ktest.NodeObject(ktest.NodeSpec{Name: name, Capacity: map[string]float64{"cpu": 64, "memory_gb": 256, "gpu": 16}})
		got, err := admin.CoreV1().Nodes().Create(ctx, n, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		got.Status = n.Status
		_, err = admin.CoreV1().Nodes().UpdateStatus(ctx, got, metav1.UpdateOptions{})
		return err
	}); err != nil {
		return fmt.Errorf("creating nodes: %v", err)
	}
	fmt.Printf("%d nodes created in %s\n", nodes, time.Since(began).Round(time.Millisecond))

	plan, all := makePlan(names, jobs, workers)
	fmt.Printf("plan: %d jobs, %d tasks\n", jobs, len(plan.Tasks))
	fmt.Printf("%-6s %-6s %-8s %-10s %-8s %-9s %-10s %-22s %-14s %s\n", "qps", "burst", "writers", "wall", "writes", "writes/s", "pods", "throttle (sum, reqs)", "cpu user+sys", "load before/after")
	prev := ""
	for _, f := range strings.Split(qpsList, ",") {
		q, err := strconv.ParseFloat(strings.TrimSpace(f), 32)
		if err != nil {
			return fmt.Errorf("-qps %q: %v", f, err)
		}
		if prev != "" { // the last run's pods would count as foreign pods on the nodes
			zero := int64(0)
			if err := admin.CoreV1().Pods(prev).DeleteCollection(ctx, metav1.DeleteOptions{GracePeriodSeconds: &zero}, metav1.ListOptions{}); err != nil {
				return err
			}
		}
		ns := fmt.Sprintf("load-%d", time.Now().UnixNano()%1000000)
		if _, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			return err
		}
		prev = ns
		c := &ktest.Counter{}
		x, err := k8s.New(ctx, k8s.Options{Namespace: ns, RESTConfig: c.Wrap(srv.Config(ktest.AdminToken)), Timeout: -1,
			QPS: float32(q), Burst: burst, LeaseDuration: 30 * time.Second})
		if err != nil {
			return err
		}
		load0 := loadavg()
		cpu0 := cpuTime()
		t0 := time.Now()
		rep, err := apply.Run(ctx, x, plan, all, apply.RunOptions{})
		wall := time.Since(t0)
		cpu := cpuTime() - cpu0
		if err != nil {
			return err
		}
		for _, r := range rep.Results {
			if r.Outcome != executor.OutcomeDone {
				return fmt.Errorf("qps %g: job %s: %s %s", q, r.Change.Job.Job, r.Outcome, r.Message)
			}
		}
		list, err := admin.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		w := len(c.Writes())
		th := x.Throttled()
		b := burst
		if b == 0 && q > 0 {
			b = int(2 * q)
		}
		fmt.Printf("%-6g %-6d %-8d %-10s %-8d %-9.1f %-10d %-22s %-14s %s / %s\n", q, b, writersOf(q), wall.Round(10*time.Millisecond), w,
			float64(w)/wall.Seconds(), len(list.Items), fmt.Sprintf("%s, %d", th.Waited.Round(time.Second), th.Requests), cpu.Round(10*time.Millisecond), load0, loadavg())
		fmt.Printf("       writes by kind: %s\n", ktest.Summary(c.Writes()))
	}
	return nil
}

// writersOf repeats the executor's default (kubernetes.writersFor) for the table.
func writersOf(qps float64) int {
	if qps <= 0 {
		return 32
	}
	return min(32, max(4, int(qps/5)))
}

// makePlan is jobs jobs of workers all-reduce tasks each, spread over the
// nodes round-robin.
func makePlan(nodes []string, jobs, workers int) (apply.Plan, map[string]executor.Job) {
	plan := apply.Plan{}
	all := map[string]executor.Job{}
	k := 0
	for j := range jobs {
		job := executor.Job{Job: fmt.Sprintf("load-%04d", j), Model: "resnet50", Mode: "allreduce",
			Image: "tensorflow/tensorflow:2.16.1-gpu", Command: "python train.py --epochs 90"}
		all[job.Job] = job
		plan.Jobs = append(plan.Jobs, apply.PlanJob{Job: job.Job, Status: "running"})
		for i := range workers {
			plan.Tasks = append(plan.Tasks, executor.Task{Job: job.Job, Role: executor.RoleWorker, Index: i, Node: nodes[k%len(nodes)],
				Resources: map[string]float64{"cpu": 1, "memory_gb": 4, "gpu": 1}})
			k++
		}
	}
	return plan, all
}

func parallel(n int, items []string, f func(string) error) error {
	next := make(chan string)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var first error
	for range n {
		wg.Go(func() {
			for it := range next {
				if err := f(it); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		})
	}
	for _, it := range items {
		next <- it
	}
	close(next)
	wg.Wait()
	return first
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 1 {
		return "?"
	}
	return f[0]
}
