package executor

import (
	"errors"
	"strings"
	"testing"
)

func TestValidatePlan(t *testing.T) {
	jobs := map[string]Job{
		"a": {Job: "a", Image: "img:1", Command: "python train.py"},
		"b": {Job: "b"},
		"c": {Job: "c", Image: "img:1", Command: "train | tee log"},
	}
	task := func(job, role string, index int, node string, gpu float64) Task {
		return Task{Job: job, Role: role, Index: index, Node: node, Resources: map[string]float64{"gpu": gpu, "cpu": 1}}
	}
	capacity := map[string]map[string]float64{"n1": {"gpu": 2, "cpu": 8}, "n2": {"cpu": 8}}
	tests := []struct {
		name    string
		plan    []Task
		opts    ValidateOptions
		wantErr string
	}{
		{name: "ok without checks", plan: []Task{task("b", RolePS, 0, "anywhere", 0)}},
		{name: "ok with capacity and image", plan: []Task{task("a", RolePS, 0, "n2", 0), task("a", RoleWorker, 0, "n1", 1), task("a", RoleWorker, 1, "n1", 1)},
			opts: ValidateOptions{NeedImage: true, Capacity: capacity}},
		{name: "unknown job", plan: []Task{task("zz", RolePS, 0, "n1", 0)}, wantErr: `task zz-ps-0: job "zz" is not in the jobs table`},
		{name: "bad role", plan: []Task{task("a", "chief", 0, "n1", 0)}, wantErr: `role "chief"`},
		{name: "duplicate", plan: []Task{task("a", RolePS, 0, "n1", 0), task("a", RolePS, 0, "n2", 0)}, wantErr: "task a-ps-0 appears twice"},
		{name: "no image", plan: []Task{task("b", RolePS, 0, "n1", 0)}, opts: ValidateOptions{NeedImage: true}, wantErr: `job "b" has no image`},
		{name: "shell operator", plan: []Task{task("c", RolePS, 0, "n1", 0)}, opts: ValidateOptions{NeedImage: true}, wantErr: "shell operator"},
		{name: "unknown node", plan: []Task{task("a", RolePS, 0, "n9", 0)}, opts: ValidateOptions{Capacity: capacity}, wantErr: `node "n9" is not in the cluster`},
		{name: "over capacity", plan: []Task{task("a", RoleWorker, 0, "n1", 1), task("a", RoleWorker, 1, "n1", 1), task("a", RoleWorker, 2, "n1", 1)},
			opts: ValidateOptions{Capacity: capacity}, wantErr: `node "n1": the plan's tasks use 3 gpu, the node has 2`},
	}
	for _, tt := range tests {
		err := ValidatePlan(tt.plan, jobs, tt.opts)
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("%s: unexpected error %v", tt.name, err)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.wantErr)
		case err != nil && !errors.Is(err, ErrInvalidPlan):
			t.Errorf("%s: error %v does not wrap ErrInvalidPlan", tt.name, err)
		}
	}
}
