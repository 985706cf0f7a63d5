package kubeclient

import (
	"context"
	"io"

	corev1 "k8s.io/api/core/v1"
)

// PodLogs streams a container's log through the API server's pods/log
// subresource (which proxies it from the node's kubelet): the request
// client-go's typed GetLogs makes, on this client's own REST client.
// opts.Previous asks for the log of the container's last ended instance
// (after a restart in the pod); the kubelet refuses it (400, "previous
// terminated container ... not found") for a container never restarted.
func (c *Client) PodLogs(ctx context.Context, namespace, pod string, opts *corev1.PodLogOptions) (io.ReadCloser, error) {
	return c.rest[corev1.SchemeGroupVersion].Get().Namespace(namespace).Resource("pods").Name(pod).
		SubResource("log").VersionedParams(opts, c.params).Stream(ctx)
}
