package print

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/optimus-sched/optimus/executor"
)

func task(role string, index int, node string, kept bool) executor.Task {
	return executor.Task{Job: "j", Role: role, Index: index, Node: node, Kept: kept}
}

func lines(trs []executor.TaskResult) []string {
	var out []string
	for _, tr := range trs {
		out = append(out, fmt.Sprintf("%s %s: %s", tr.Task.Name(), tr.Outcome, tr.Message))
	}
	return out
}

func TestTaskPlan(t *testing.T) {
	ps0, w0, w1 := task("ps", 0, "n1", false), task("worker", 0, "n1", false), task("worker", 1, "n2", false)
	tests := []struct {
		name string
		c    executor.Change
		want []string
	}{
		{"start", executor.Change{Action: executor.ActionStart, To: []executor.Task{ps0, w0}},
			[]string{"j-ps-0 planned: start on n1", "j-worker-0 planned: start on n1"}},
		{"stop", executor.Change{Action: executor.ActionStop, From: []executor.Task{ps0, w0}},
			[]string{"j-ps-0 planned: stop on n1", "j-worker-0 planned: stop on n1"}},
		{"resize up", executor.Change{Action: executor.ActionResize, From: []executor.Task{ps0, w0}, To: []executor.Task{ps0, w0, w1}},
			[]string{"j-ps-0 planned: restart on n1", "j-worker-0 planned: restart on n1", "j-worker-1 planned: start on n2"}},
		{"resize down", executor.Change{Action: executor.ActionResize, From: []executor.Task{ps0, w0, w1}, To: []executor.Task{ps0, w0}},
			[]string{"j-ps-0 planned: restart on n1", "j-worker-0 planned: restart on n1", "j-worker-1 planned: stop on n2"}},
		{"move with a kept task", executor.Change{Action: executor.ActionMove, From: []executor.Task{ps0, w0},
			To: []executor.Task{task("ps", 0, "n1", true), task("worker", 0, "n3", false)}},
			[]string{"j-ps-0 skipped: kept on n1", "j-worker-0 planned: move from n1 to n3"}},
	}
	for _, tt := range tests {
		if got := lines(TaskPlan(tt.c)); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
}

func TestApplyChangesNothingAndWritesManifests(t *testing.T) {
	var seen []executor.Change
	var yaml bytes.Buffer
	e, err := New(Options{Manifests: &yaml, Manifest: func(w io.Writer, cs []executor.Change) error {
		seen = cs
		_, err := io.WriteString(w, "kind: Pod\n")
		return err
	}})
	if err != nil {
		t.Fatal(err)
	}
	changes := []executor.Change{{Job: executor.Job{Job: "j"}, Action: executor.ActionStart, To: []executor.Task{task("ps", 0, "n1", false)}}}
	res, err := e.Apply(context.Background(), changes, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].Outcome != executor.OutcomePlanned || len(seen) != 1 || yaml.String() != "kind: Pod\n" {
		t.Errorf("results %+v, manifests of %d changes, yaml %q", res, len(seen), yaml.String())
	}
	jobs := map[string]executor.Job{"j": {Job: "j"}}
	if err := e.Validate(context.Background(), changes[0].To, jobs); err == nil {
		t.Error("with manifests, a job without an image must not validate")
	}
	failing, _ := New(Options{Manifests: &yaml, Manifest: func(io.Writer, []executor.Change) error { return errors.New(`job "J" cannot name a Service`) }})
	err = failing.Validate(context.Background(), changes[0].To, map[string]executor.Job{"j": {Job: "j", Image: "img"}})
	if !errors.Is(err, executor.ErrInvalidPlan) || !strings.Contains(err.Error(), "cannot name a Service") {
		t.Errorf("a manifest that does not build: %v, want an invalid plan", err)
	}
	if _, err := New(Options{Manifests: &yaml}); err == nil {
		t.Error("manifests without a writer must be refused")
	}
}
