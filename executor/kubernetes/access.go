package kubernetes

import (
	"context"
	"slices"

	"github.com/optimus-sched/optimus/executor/kubeclient"
)

// Needed lists every permission the executor uses: pods and Services it
// manages, the Lease that serialises applies, and read cluster-wide the
// nodes, every namespace's pods (what others request of the nodes:
// ForeignUsage) and the namespace itself (what deploy/rbac.yaml grants).
var Needed = slices.Concat(
	access("", "pods", false, "get", "list", "create", "delete"),
	access("", "services", false, "get", "list", "create", "update", "delete"),
	access("coordination.k8s.io", "leases", false, "get", "create", "update"),
	access("", "nodes", true, "list"),
	access("", "pods", true, "list"),
	access("", "namespaces", true, "get"),
)

// access is the permissions to do verbs on a resource of group, in the
// namespace or cluster-wide.
func access(group, resource string, cluster bool, verbs ...string) []kubeclient.Access {
	out := make([]kubeclient.Access, len(verbs))
	for i, v := range verbs {
		out[i] = kubeclient.Access{Group: group, Resource: resource, Verb: v, Cluster: cluster}
	}
	return out
}

// CheckAccess checks that this user has every permission in Needed
// (kubeclient.Client.CheckAccess); Apply calls it before its first write.
func (e *Executor) CheckAccess(ctx context.Context) error {
	return e.client.CheckAccess(ctx, Needed)
}
