package kubernetes

// The peer environment of a job's tasks, per framework
// (docs/kubernetes.md, "Peer environment").

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"github.com/optimus-sched/optimus/executor"
)

// peers are a job's task addresses (<task>.<job>:Port) by role.
type peers struct{ ps, workers []string }

// envFor is a task's environment: OPTIMUS_* for every job, and the peer
// variables its framework reads (of the roles the job has: an all-reduce
// job, workers only, names no PS).
func envFor(fw string, j executor.Job, t executor.Task, pr peers) []corev1.EnvVar {
	role, index := t.Role, t.Index
	numPS, numWorkers := len(pr.ps), len(pr.workers)
	env := []corev1.EnvVar{
		{Name: "OPTIMUS_JOB", Value: j.Job},
		{Name: "OPTIMUS_ROLE", Value: role},
		{Name: "OPTIMUS_INDEX", Value: strconv.Itoa(index)},
		{Name: "OPTIMUS_NUM_PS", Value: strconv.Itoa(numPS)},
		{Name: "OPTIMUS_NUM_WORKERS", Value: strconv.Itoa(numWorkers)},
	}
	switch {
	case fw == FrameworkMXNet && numPS == 0:
		// An all-reduce job (workers only): no parameter servers, no
		// scheduler, so no DMLC_* pointing at them.
	case fw == FrameworkMXNet:
		dmlcRole := map[string]string{executor.RolePS: "server", executor.RoleWorker: "worker", RoleScheduler: "scheduler"}[role]
		env = append(env,
			corev1.EnvVar{Name: "DMLC_ROLE", Value: dmlcRole},
			corev1.EnvVar{Name: "DMLC_NUM_SERVER", Value: strconv.Itoa(numPS)},
			corev1.EnvVar{Name: "DMLC_NUM_WORKER", Value: strconv.Itoa(numWorkers)},
			corev1.EnvVar{Name: "DMLC_PS_ROOT_URI", Value: j.Job + "-" + RoleScheduler + "-0." + j.Job},
			corev1.EnvVar{Name: "DMLC_PS_ROOT_PORT", Value: strconv.Itoa(Port)},
		)
	case fw == FrameworkPyTorch:
		env = append(env, torchEnv(t, pr)...)
	default:
		cfg := struct {
			Cluster map[string][]string `json:"cluster"`
			Task    struct {
				Type  string `json:"type"`
				Index int    `json:"index"`
			} `json:"task"`
		}{Cluster: map[string][]string{"worker": pr.workers}}
		if numPS > 0 { // an all-reduce job's cluster has workers only
			cfg.Cluster["ps"] = pr.ps
		}
		cfg.Task.Type, cfg.Task.Index = role, index
		b, _ := json.Marshal(cfg) // plain strings and ints: cannot fail
		env = append(env, corev1.EnvVar{Name: "TF_CONFIG", Value: string(b)})
	}
	return env
}

// torchEnv is what torchrun and torch.distributed read: each worker pod is
// one torchrun node (NODE_RANK = its index of NNODES = the job's workers)
// running LOCAL_WORLD_SIZE processes, one per GPU it was given (at least
// one); WORLD_SIZE counts the processes of all pods and RANK is the global
// rank of the pod's first process (exact for a plain one-process
// `python train.py`; torchrun sets each child's own). MASTER_ADDR is
// worker 0 through the job's headless Service. The PET_* variables are
// torchrun's own flags (--nnodes, --node-rank, --nproc-per-node,
// --master-addr, --master-port) given by environment, so a bare
// `torchrun train.py` needs no flag; flags on the command line win.
func torchEnv(t executor.Task, pr peers) []corev1.EnvVar {
	local := int(math.Max(1, math.Round(t.Resources["gpu"])))
	nodes := len(pr.workers)
	master := strings.TrimSuffix(pr.workers[0], ":"+strconv.Itoa(Port))
	port := strconv.Itoa(Port)
	kv := [][2]string{
		{"MASTER_ADDR", master},
		{"MASTER_PORT", port},
		{"WORLD_SIZE", strconv.Itoa(nodes * local)},
		{"RANK", strconv.Itoa(t.Index * local)},
		{"NODE_RANK", strconv.Itoa(t.Index)},
		{"LOCAL_WORLD_SIZE", strconv.Itoa(local)},
		{"PET_NNODES", strconv.Itoa(nodes)},
		{"PET_NODE_RANK", strconv.Itoa(t.Index)},
		{"PET_NPROC_PER_NODE", strconv.Itoa(local)},
		{"PET_MASTER_ADDR", master},
		{"PET_MASTER_PORT", port},
	}
	env := make([]corev1.EnvVar, len(kv))
	for i, p := range kv {
		env[i] = corev1.EnvVar{Name: p[0], Value: p[1]}
	}
	return env
}

// shareWithScheduler splits the first PS's demands between it and the MXNet
// scheduler pod beside it, so that the job requests on that node what the
// plan gave it: the scheduler takes SchedulerRequests, at most half of what
// the PS has of a resource. Of a resource the plan gives the PS none of,
// the scheduler requests SchedulerRequests on top (Validate counts them).
func shareWithScheduler(ps map[string]float64) (psShare, sched map[string]float64) {
	psShare = make(map[string]float64, len(ps))
	for r, v := range ps {
		psShare[r] = v
	}
	sched = map[string]float64{}
	for r, want := range SchedulerRequests {
		have := ps[r]
		if have <= 0 {
			sched[r] = want
			continue
		}
		take := math.Min(want, have/2)
		sched[r] = take
		psShare[r] = have - take
	}
	return psShare, sched
}
