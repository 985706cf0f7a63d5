package kubernetes

import (
	"context"
	"fmt"
	"sync"

	authnv1 "k8s.io/api/authentication/v1"
	authzv1 "k8s.io/api/authorization/v1"
	coordv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/flowcontrol"
)

// The executor talks to four API groups through client-go's REST client
// with a scheme of those groups only. client-go's generated clientset
// (k8s.io/client-go/kubernetes) would register every group of the API at
// start-up, a cost every optimus command paid, kubernetes or not
// (benchmarks/pipeline.md); this scheme is built when a client is.
var apiScheme = sync.OnceValues(func() (serializer.CodecFactory, runtime.ParameterCodec) {
	s := runtime.NewScheme()
	metav1.AddToGroupVersion(s, schema.GroupVersion{Version: "v1"})
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, coordv1.AddToScheme, authnv1.AddToScheme, authzv1.AddToScheme} {
		if err := add(s); err != nil {
			panic(err) // the groups' own registration: cannot fail
		}
	}
	return serializer.NewCodecFactory(s), runtime.NewParameterCodec(s)
})

// parameterCodec encodes options as query parameters.
func parameterCodec() runtime.ParameterCodec {
	_, pc := apiScheme()
	return pc
}

// client holds one REST client per API group the executor uses.
type client struct {
	core, coordination, authentication, authorization *rest.RESTClient
}

// newClient builds the group clients over one HTTP client and, as
// client-go's clientset does, one rate limiter shared by all groups.
func newClient(cfg *rest.Config) (*client, error) {
	cfg = rest.CopyConfig(cfg)
	if cfg.RateLimiter == nil && cfg.QPS > 0 {
		if cfg.Burst <= 0 {
			return nil, fmt.Errorf("burst is required to be greater than 0 when RateLimiter is not set and QPS is set to greater than 0")
		}
		cfg.RateLimiter = flowcontrol.NewTokenBucketRateLimiter(cfg.QPS, cfg.Burst)
	}
	httpClient, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, err
	}
	group := func(gv schema.GroupVersion) (*rest.RESTClient, error) {
		c := rest.CopyConfig(cfg)
		c.GroupVersion = &gv
		c.APIPath = "/apis"
		if gv.Group == "" {
			c.APIPath = "/api"
		}
		codecs, _ := apiScheme()
		c.NegotiatedSerializer = codecs.WithoutConversion()
		return rest.RESTClientForConfigAndClient(c, httpClient)
	}
	var cl client
	for _, g := range []struct {
		to **rest.RESTClient
		gv schema.GroupVersion
	}{{&cl.core, corev1.SchemeGroupVersion}, {&cl.coordination, coordv1.SchemeGroupVersion},
		{&cl.authentication, authnv1.SchemeGroupVersion}, {&cl.authorization, authzv1.SchemeGroupVersion}} {
		if *g.to, err = group(g.gv); err != nil {
			return nil, err
		}
	}
	return &cl, nil
}

func (c *client) pods(ns string) kind[corev1.Pod, *corev1.Pod, corev1.PodList, *corev1.PodList] {
	return kind[corev1.Pod, *corev1.Pod, corev1.PodList, *corev1.PodList]{c.core, ns, "pods"}
}

func (c *client) services(ns string) kind[corev1.Service, *corev1.Service, corev1.ServiceList, *corev1.ServiceList] {
	return kind[corev1.Service, *corev1.Service, corev1.ServiceList, *corev1.ServiceList]{c.core, ns, "services"}
}

func (c *client) nodes() kind[corev1.Node, *corev1.Node, corev1.NodeList, *corev1.NodeList] {
	return kind[corev1.Node, *corev1.Node, corev1.NodeList, *corev1.NodeList]{c.core, "", "nodes"}
}

func (c *client) leases(ns string) kind[coordv1.Lease, *coordv1.Lease, coordv1.LeaseList, *coordv1.LeaseList] {
	return kind[coordv1.Lease, *coordv1.Lease, coordv1.LeaseList, *coordv1.LeaseList]{c.coordination, ns, "leases"}
}

func (c *client) selfSubjectAccessReviews() kind[authzv1.SelfSubjectAccessReview, *authzv1.SelfSubjectAccessReview, authzv1.SelfSubjectAccessReview, *authzv1.SelfSubjectAccessReview] {
	return kind[authzv1.SelfSubjectAccessReview, *authzv1.SelfSubjectAccessReview, authzv1.SelfSubjectAccessReview, *authzv1.SelfSubjectAccessReview]{c.authorization, "", "selfsubjectaccessreviews"}
}

func (c *client) selfSubjectReviews() kind[authnv1.SelfSubjectReview, *authnv1.SelfSubjectReview, authnv1.SelfSubjectReview, *authnv1.SelfSubjectReview] {
	return kind[authnv1.SelfSubjectReview, *authnv1.SelfSubjectReview, authnv1.SelfSubjectReview, *authnv1.SelfSubjectReview]{c.authentication, "", "selfsubjectreviews"}
}

// object is an API object type T through its pointer.
type object[T any] interface {
	*T
	runtime.Object
	GetName() string
}

// kind is one kind of object in one namespace ("" for a
// cluster-scoped kind), with the calls of client-go's typed clients that
// the executor makes.
type kind[T any, PT object[T], L any, PL interface {
	*L
	runtime.Object
}] struct {
	rc       *rest.RESTClient
	ns, name string
}

func (r kind[T, PT, L, PL]) List(ctx context.Context, opts metav1.ListOptions) (*L, error) {
	out := PL(new(L))
	err := r.rc.Get().NamespaceIfScoped(r.ns, r.ns != "").Resource(r.name).
		VersionedParams(&opts, parameterCodec()).Do(ctx).Into(out)
	return out, err
}

func (r kind[T, PT, L, PL]) Get(ctx context.Context, name string, opts metav1.GetOptions) (*T, error) {
	out := PT(new(T))
	err := r.rc.Get().NamespaceIfScoped(r.ns, r.ns != "").Resource(r.name).Name(name).
		VersionedParams(&opts, parameterCodec()).Do(ctx).Into(out)
	return out, err
}

func (r kind[T, PT, L, PL]) Create(ctx context.Context, obj *T, opts metav1.CreateOptions) (*T, error) {
	out := PT(new(T))
	err := r.rc.Post().NamespaceIfScoped(r.ns, r.ns != "").Resource(r.name).
		VersionedParams(&opts, parameterCodec()).Body(PT(obj)).Do(ctx).Into(out)
	return out, err
}

func (r kind[T, PT, L, PL]) Update(ctx context.Context, obj *T, opts metav1.UpdateOptions) (*T, error) {
	out := PT(new(T))
	err := r.rc.Put().NamespaceIfScoped(r.ns, r.ns != "").Resource(r.name).Name(PT(obj).GetName()).
		VersionedParams(&opts, parameterCodec()).Body(PT(obj)).Do(ctx).Into(out)
	return out, err
}

func (r kind[T, PT, L, PL]) Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error {
	return r.rc.Delete().NamespaceIfScoped(r.ns, r.ns != "").Resource(r.name).Name(name).
		Body(&opts).Do(ctx).Error()
}
