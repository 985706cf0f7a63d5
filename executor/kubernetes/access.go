package kubernetes

import (
	"context"
	"strings"

	authnv1 "k8s.io/api/authentication/v1"
	authzv1 "k8s.io/api/authorization/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Access is one permission apply needs: what deploy/rbac.yaml grants.
type Access struct {
	Group, Resource, Verb string
	Cluster               bool // cluster-wide (nodes), else in the namespace
}

// Needed lists every permission the executor uses: pods and Services it
// manages, the Lease that serialises applies, and nodes read cluster-wide.
var Needed = []Access{
	{"", "pods", "get", false}, {"", "pods", "list", false}, {"", "pods", "create", false}, {"", "pods", "delete", false},
	{"", "services", "get", false}, {"", "services", "list", false}, {"", "services", "create", false}, {"", "services", "delete", false},
	{"coordination.k8s.io", "leases", "get", false}, {"coordination.k8s.io", "leases", "create", false}, {"coordination.k8s.io", "leases", "update", false},
	{"", "nodes", "list", true},
}

// CheckAccess asks the API server (SelfSubjectAccessReview, which any
// authenticated user may) whether this user has every permission in Needed,
// and returns a PermissionError naming those missing. Apply calls it before
// its first write, so a user lacking a permission changes nothing.
func (e *Executor) CheckAccess(ctx context.Context) error {
	var missing []string
	for _, a := range Needed {
		ra := &authzv1.ResourceAttributes{Group: a.Group, Resource: a.Resource, Verb: a.Verb}
		if !a.Cluster {
			ra.Namespace = e.namespace
		}
		r, err := e.client.selfSubjectAccessReviews().Create(ctx,
			&authzv1.SelfSubjectAccessReview{Spec: authzv1.SelfSubjectAccessReviewSpec{ResourceAttributes: ra}}, metav1.CreateOptions{})
		if err != nil {
			return e.apiError(err, "create", "selfsubjectaccessreviews")
		}
		if !r.Status.Allowed {
			res := a.Resource
			if a.Group != "" {
				res += "." + a.Group
			}
			if a.Cluster {
				res += " (cluster-wide)"
			}
			missing = append(missing, a.Verb+" "+res)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	pe := &PermissionError{Verb: strings.Join(missing, ", "), Resource: "", Namespace: e.namespace, User: e.user(ctx)}
	return pe
}

// user is who the API server says this client is ("" when it will not say).
func (e *Executor) user(ctx context.Context) string {
	r, err := e.client.selfSubjectReviews().Create(ctx, &authnv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		return ""
	}
	return r.Status.UserInfo.Username
}
