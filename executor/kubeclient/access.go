package kubeclient

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	authnv1 "k8s.io/api/authentication/v1"
	authzv1 "k8s.io/api/authorization/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Access is one permission an executor needs: what deploy/rbac.yaml grants.
type Access struct {
	Group, Resource, Verb string
	Cluster               bool // cluster-wide (nodes), else in the namespace
}

// CheckAccess asks the API server (SelfSubjectAccessReview, which any
// authenticated user may) whether this user has every permission in needed,
// and returns a PermissionError naming those missing. An executor calls it
// before its first write, so a user lacking a permission changes nothing.
func (c *Client) CheckAccess(ctx context.Context, needed []Access) error {
	var missing []string
	for _, a := range needed {
		ra := &authzv1.ResourceAttributes{Group: a.Group, Resource: a.Resource, Verb: a.Verb}
		if !a.Cluster {
			ra.Namespace = c.Namespace
		}
		r, err := c.selfSubjectAccessReviews().Create(ctx,
			&authzv1.SelfSubjectAccessReview{Spec: authzv1.SelfSubjectAccessReviewSpec{ResourceAttributes: ra}}, metav1.CreateOptions{})
		if err != nil {
			return c.APIError(err, "create", "selfsubjectaccessreviews")
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
	return &PermissionError{Verb: strings.Join(missing, ", "), Resource: "", Namespace: c.Namespace, User: c.User(ctx)}
}

// User is who the API server says this client is ("" when it will not
// say).
func (c *Client) User(ctx context.Context) string {
	r, err := c.selfSubjectReviews().Create(ctx, &authnv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		return ""
	}
	return r.Status.UserInfo.Username
}

// APIError turns a failed request (verb on resource in the client's
// namespace) into an error saying what was asked: a PermissionError naming
// what optimus needs when the cluster refused it to this user.
func (c *Client) APIError(err error, verb, resource string) error {
	// RBAC refusals are Forbidden and say "cannot"; admission refusals
	// (a ResourceQuota, a policy webhook) are Forbidden too but are not
	// about permissions.
	if apierrors.IsUnauthorized(err) || apierrors.IsForbidden(err) && strings.Contains(err.Error(), " cannot ") {
		return &PermissionError{Verb: verb, Resource: resource, Namespace: c.Namespace, Err: err}
	}
	if plain := c.plainError(err); plain != nil {
		return fmt.Errorf("%w (%s %s in namespace %s)", plain, verb, resource, c.Namespace)
	}
	return fmt.Errorf("kubernetes: %s %s in namespace %s: %w", verb, resource, c.Namespace, err)
}

// PermissionError is a request the cluster refused to this user.
type PermissionError struct {
	Verb, Resource, Namespace string
	User                      string // when known
	Err                       error  // the API's answer, or nil
}

func (e *PermissionError) Error() string {
	who := "this user"
	if e.User != "" {
		who = "user " + strconv.Quote(e.User)
	}
	what := e.Verb + " " + e.Resource
	if e.Resource == "" { // a list of "verb resource" already
		what = e.Verb
	}
	where := " in namespace " + e.Namespace
	if e.Resource == "nodes" {
		where = " (cluster-wide)"
	}
	msg := fmt.Sprintf("kubernetes: permission denied: %s may not %s%s; nothing was changed. Grant the Role and ClusterRole in deploy/rbac.yaml (docs/kubernetes.md)", who, what, where)
	if e.Err != nil {
		msg += " [" + e.Err.Error() + "]"
	}
	return msg
}
