package kubernetes

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/optimus-sched/optimus/executor/kubeclient"
)

// writeError says why a write of object name (of job) failed, in the words
// the actions table carries: the object in the way and who owns it for a
// conflict, the ResourceQuota for a quota refusal, the API server's
// address for a connection error, the permission for an RBAC refusal.
func (e *Executor) writeError(ctx context.Context, err error, verb, resource, name, job string) string {
	var netErr net.Error
	switch {
	case apierrors.IsAlreadyExists(err) && resource == "pods":
		return e.podInTheWay(ctx, name, job)
	case apierrors.IsAlreadyExists(err):
		return fmt.Sprintf("%s %s already exists (created meanwhile by someone else)", strings.TrimSuffix(resource, "s"), name)
	case apierrors.IsConflict(err):
		return fmt.Sprintf("conflict: %s %s changed meanwhile (another writer): %v", strings.TrimSuffix(resource, "s"), name, apiMessage(err))
	case apierrors.IsForbidden(err) && strings.Contains(err.Error(), "exceeded quota"):
		return "refused by a ResourceQuota: " + apiMessage(err)
	case apierrors.IsInvalid(err):
		return "invalid: " + apiMessage(err)
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		if cause := context.Cause(ctx); cause != nil {
			return kubeclient.HaltReason(cause) + " while it was sent (it may have been made: the journal covers it)"
		}
		return "interrupted: " + err.Error()
	case errors.As(err, &netErr), strings.Contains(err.Error(), "connection refused"):
		return fmt.Sprintf("cannot reach the API server at %s: %v", e.host, err)
	}
	return e.apiError(err, verb, resource).Error()
}

// apiMessage is the API server's own message of an API error.
func apiMessage(err error) string {
	var st apierrors.APIStatus
	if errors.As(err, &st) && st.Status().Message != "" {
		return st.Status().Message
	}
	return err.Error()
}

// podInTheWay names the pod a create collided with and who owns it.
func (e *Executor) podInTheWay(ctx context.Context, name, job string) string {
	p, err := e.client.Pods(e.namespace).Get(ctx, name, metav1.GetOptions{})
	switch {
	case err != nil:
		return fmt.Sprintf("pod %s already exists (could not read it: %v)", name, err)
	case !managed(p):
		return fmt.Sprintf("pod %s exists and is not managed by optimus (no label %s=%s)", name, LabelManagedBy, ManagedByValue)
	case p.Labels[LabelJob] != job:
		return fmt.Sprintf("pod %s exists and belongs to optimus job %q", name, p.Labels[LabelJob])
	case p.DeletionTimestamp != nil:
		return fmt.Sprintf("the old pod %s (generation %s) is still terminating", name, p.Annotations[AnnotGeneration])
	}
	return fmt.Sprintf("pod %s was created meanwhile (generation %s, created %s): another apply is writing?", name, p.Annotations[AnnotGeneration], p.CreationTimestamp.UTC().Format("15:04:05"))
}
