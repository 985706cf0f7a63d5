package ktest

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
)

// Kubelet plays the part of the kubelets of every Ready node that exists:
// it marks pods bound there Running and removes pods being deleted (there
// is no real kubelet). Stop it with the returned function.
//
// It lists nodes and pods once, then follows them with watches from the
// lists' resource version, acting on each change as it arrives; it lists
// again only when a watch ends or a write fails. (It used to list every
// pod of the cluster ten times a second, which at a thousand pods was
// most of the API server's work in the tests.)
func Kubelet(c kubernetes.Interface) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			k := &kubelet{c: c, ready: map[string]bool{}, pending: map[string]map[types.UID]*corev1.Pod{}}
			k.follow(ctx)
			select {
			case <-ctx.Done():
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	return func() { cancel(); <-done }
}

// kubelet is one list-then-watch pass of Kubelet.
type kubelet struct {
	c     kubernetes.Interface
	ready map[string]bool
	// pending are the Pending pods on nodes not Ready, by node: they are
	// started when their node turns Ready.
	pending map[string]map[types.UID]*corev1.Pod
}

// follow lists, then watches until a watch ends or a write fails.
func (k *kubelet) follow(ctx context.Context) {
	nodes, err := k.c.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return
	}
	pods, err := k.c.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return
	}
	nw, err := k.c.CoreV1().Nodes().Watch(ctx, metav1.ListOptions{ResourceVersion: nodes.ResourceVersion})
	if err != nil {
		return
	}
	defer nw.Stop()
	pw, err := k.c.CoreV1().Pods("").Watch(ctx, metav1.ListOptions{ResourceVersion: pods.ResourceVersion})
	if err != nil {
		return
	}
	defer pw.Stop()
	for i := range nodes.Items {
		k.ready[nodes.Items[i].Name] = isReady(&nodes.Items[i])
	}
	for i := range pods.Items {
		if !k.pod(ctx, &pods.Items[i]) {
			return
		}
	}
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-nw.ResultChan():
			if !ok || ev.Type == watch.Error {
				return
			}
			n, isNode := ev.Object.(*corev1.Node)
			if !isNode {
				continue
			}
			was := k.ready[n.Name]
			k.ready[n.Name] = ev.Type != watch.Deleted && isReady(n)
			if k.ready[n.Name] && !was {
				for _, p := range k.pending[n.Name] {
					if !k.pod(ctx, p) {
						return
					}
				}
			}
		case ev, ok := <-pw.ResultChan():
			if !ok || ev.Type == watch.Error {
				return
			}
			p, isPod := ev.Object.(*corev1.Pod)
			if !isPod {
				continue
			}
			if ev.Type == watch.Deleted {
				delete(k.pending[p.Spec.NodeName], p.UID)
				continue
			}
			if !k.pod(ctx, p) {
				return
			}
		}
	}
}

// pod does what a kubelet would with p; false when a write failed (the
// caller lists again, so that the change is not lost). A conflict is not a
// failure: the pod changed after the version p is (or, for a delete, the
// name is another pod's now), and the watch brings that change next.
func (k *kubelet) pod(ctx context.Context, p *corev1.Pod) bool {
	node := p.Spec.NodeName
	delete(k.pending[node], p.UID)
	switch {
	case p.DeletionTimestamp != nil && p.DeletionGracePeriodSeconds != nil && *p.DeletionGracePeriodSeconds == 0:
		// A delete with no grace period: the server marks the pod (the
		// change seen here) and removes it itself, as it would with a real
		// kubelet; deleting it again would only be answered 404.
	case p.DeletionTimestamp != nil:
		zero := int64(0)
		uid := p.UID
		err := k.c.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero, Preconditions: &metav1.Preconditions{UID: &uid}})
		return err == nil || IsGone(err) || apierrors.IsConflict(err) || ctx.Err() != nil
	case p.Status.Phase == corev1.PodPending && k.ready[node]:
		now := metav1.Now()
		p = p.DeepCopy()
		p.Status.Phase = corev1.PodRunning
		p.Status.StartTime = &now
		p.Status.PodIP = "10.0.0.1"
		p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: now}}
		_, err := k.c.CoreV1().Pods(p.Namespace).UpdateStatus(ctx, p, metav1.UpdateOptions{})
		return err == nil || IsGone(err) || apierrors.IsConflict(err) || ctx.Err() != nil
	case p.Status.Phase == corev1.PodPending && node != "":
		if k.pending[node] == nil {
			k.pending[node] = map[types.UID]*corev1.Pod{}
		}
		k.pending[node][p.UID] = p
	}
	return true
}

func isReady(n *corev1.Node) bool {
	for _, cond := range n.Status.Conditions {
		if cond.Type == corev1.NodeReady && cond.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}
