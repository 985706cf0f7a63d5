// Package kubeclient is what every Kubernetes-family executor of optimus
// shares: a connection to one namespace of a cluster (Connect: kubeconfig,
// context, in-cluster fallback), typed calls on the API objects it uses
// (Resource), the Lease that lets one apply at a time write to a namespace
// (AcquireLease), and the check, before any write, that this user may do
// everything the executor needs (CheckAccess, PermissionError).
//
// The pod executor (executor/kubernetes) uses it; an executor for a
// training operator's jobs or for JobSets adds its API group (Options.Groups)
// and its own list of needed permissions.
//
// It talks to the API groups through client-go's REST client with a scheme
// of those groups only. client-go's generated clientset
// (k8s.io/client-go/kubernetes) would register every group of the API at
// start-up, a cost every optimus command paid, kubernetes or not
// (benchmarks/pipeline.md); this scheme is built when a client is.
package kubeclient

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	authnv1 "k8s.io/api/authentication/v1"
	authzv1 "k8s.io/api/authorization/v1"
	coordv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/flowcontrol"

	"github.com/optimus-sched/optimus/executor/kubeopts"
)

// Options say which cluster and namespace to connect to.
type Options struct {
	// Kubeconfig is the kubeconfig file; "" uses the KUBECONFIG variable,
	// then ~/.kube/config, then the in-cluster service account.
	Kubeconfig string
	// Context is the kubeconfig context; "" is its current context.
	Context string
	// Namespace to act in; "" is the context's namespace (in a cluster: the
	// pod's own), else "default".
	Namespace string
	// RESTConfig, when set, is used instead of loading a kubeconfig.
	RESTConfig *rest.Config
	// Groups are the API groups the executor uses besides the core group,
	// coordination.k8s.io (the Lease), authentication.k8s.io and
	// authorization.k8s.io (the access checks), which every client has.
	Groups []Group
	// RequestTimeout bounds every API request, from connecting to the last
	// byte of the answer, so that a server that accepts the connection and
	// never answers cannot hang the command; 0: no bound but the context's
	// (for a caller that streams, such as a log follower).
	RequestTimeout time.Duration
	// MaxResponse caps the bytes of one API response (see responseCap);
	// 0: MaxResponse().
	MaxResponse int64
	// QPS and Burst are the client-side rate limit of all the client's
	// requests (a token bucket: Burst requests at once, QPS a second on
	// average). QPS 0 keeps the configuration's own (a kubeconfig sets
	// none: DefaultQPS, DefaultBurst); negative: no client-side limit (the
	// API server's priority and fairness still applies). Burst 0 is twice
	// QPS.
	QPS   float32
	Burst int
}

// Group is one API group version and the function that registers its types
// (the AddToScheme of its Go package).
type Group struct {
	Version     schema.GroupVersion
	AddToScheme func(*runtime.Scheme) error
}

// baseGroups are the groups every client has.
var baseGroups = []Group{
	{corev1.SchemeGroupVersion, corev1.AddToScheme},
	{coordv1.SchemeGroupVersion, coordv1.AddToScheme},
	{authnv1.SchemeGroupVersion, authnv1.AddToScheme},
	{authzv1.SchemeGroupVersion, authzv1.AddToScheme},
}

// The client-side rate limit of a client whose configuration sets none
// (a kubeconfig never does), and the default of the --qps and --burst
// flags. client-go's own default, 5 requests a second, made an apply of
// 9,534 pods take 35 minutes; at 100 a second one of 10,000 pods and
// 1,000 Services takes under 4 minutes on the test API server
// (benchmarks/kubernetes-load.md). The API server shares itself out
// fairly among clients (API Priority and Fairness), so a client that asks
// for more than its share is queued there, not served ahead of others.
const (
	DefaultQPS   = kubeopts.DefaultQPS
	DefaultBurst = kubeopts.DefaultBurst
)

// Client is a connection to one namespace of a cluster.
type Client struct {
	// Namespace is where the client acts (Options.Namespace, resolved).
	Namespace string
	// Host is the API server's address.
	Host string

	rest    map[schema.GroupVersion]*rest.RESTClient
	params  runtime.ParameterCodec
	limiter *meteredLimiter // nil: no client-side limit
}

// Connect builds a client for the cluster and namespace the options name,
// with one HTTP client and, as client-go's clientset does, one rate limiter
// shared by all groups but the Leases'. It makes no API call.
//
// The Leases have a token bucket of their own, of the same QPS and burst:
// a renewal must not wait in line behind the writes its Lease guards. At
// --qps 10 with the writes queued, a renewal's GET and PUT waited past the
// 2/3 of the Lease after which it counts as lost, and an apply stopped
// itself half done. kube-controller-manager gives leader election a client
// of its own for the same reason. The Lease's requests are few (two per
// renewal, every third of its duration), so --qps still bounds the rest.
func Connect(o Options) (*Client, error) {
	cfg := o.RESTConfig
	ns := o.Namespace
	if cfg == nil {
		rules := clientcmd.NewDefaultClientConfigLoadingRules() // KUBECONFIG, ~/.kube/config
		if o.Kubeconfig != "" {
			rules.ExplicitPath = o.Kubeconfig
		}
		cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: o.Context})
		var err error
		if cfg, err = cc.ClientConfig(); err != nil { // falls back to in-cluster config
			if clientcmd.IsEmptyConfig(err) {
				return nil, &ConfigError{Err: errors.New("no cluster configured: give --kubeconfig, set KUBECONFIG, or run inside a cluster")}
			}
			return nil, &ConfigError{Err: err}
		}
		if ns == "" {
			if ns, _, err = cc.Namespace(); err != nil {
				return nil, &ConfigError{Err: err}
			}
		}
	}
	if ns == "" {
		ns = "default"
	}
	cfg = rest.CopyConfig(cfg)
	switch {
	case o.QPS != 0:
		cfg.QPS, cfg.Burst, cfg.RateLimiter = o.QPS, o.Burst, nil
		if cfg.Burst <= 0 {
			cfg.Burst = int(math.Ceil(2 * float64(o.QPS)))
		}
	case cfg.QPS == 0 && cfg.RateLimiter == nil:
		cfg.QPS, cfg.Burst = DefaultQPS, DefaultBurst
	}
	if cfg.UserAgent == "" {
		cfg.UserAgent = "optimus"
	}
	if o.RequestTimeout > 0 {
		cfg.Timeout = o.RequestTimeout
	}
	limit := o.MaxResponse
	if limit <= 0 {
		limit = MaxResponse()
	}
	capResponses(cfg, limit)
	c, err := newClient(cfg, append(append([]Group(nil), baseGroups...), o.Groups...))
	if err != nil {
		return nil, fmt.Errorf("kubernetes: %v", err)
	}
	c.Namespace, c.Host = ns, cfg.Host
	return c, nil
}

// ConfigError is a kubeconfig (or in-cluster configuration) that cannot be
// used: missing, not YAML, naming no such context, no server. It is the
// user's input, so optimus exits 2 on it.
type ConfigError = kubeopts.ConfigError

func newClient(cfg *rest.Config, groups []Group) (*Client, error) {
	s := runtime.NewScheme()
	metav1.AddToGroupVersion(s, schema.GroupVersion{Version: "v1"})
	for _, g := range groups {
		if err := g.AddToScheme(s); err != nil {
			return nil, fmt.Errorf("registering %s: %v", g.Version, err)
		}
	}
	codecs := serializer.NewCodecFactory(s)
	if cfg.RateLimiter == nil && cfg.QPS > 0 {
		if cfg.Burst <= 0 {
			return nil, fmt.Errorf("burst is required to be greater than 0 when RateLimiter is not set and QPS is set to greater than 0")
		}
		cfg.RateLimiter = flowcontrol.NewTokenBucketRateLimiter(cfg.QPS, cfg.Burst)
	}
	var limiter *meteredLimiter
	var leaseLimiter flowcontrol.RateLimiter
	if cfg.RateLimiter != nil {
		limiter = &meteredLimiter{RateLimiter: cfg.RateLimiter}
		cfg.RateLimiter = limiter
		leaseLimiter = limiter
		if cfg.QPS > 0 {
			leaseLimiter = flowcontrol.NewTokenBucketRateLimiter(cfg.QPS, cfg.Burst)
		}
	}
	httpClient, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, err
	}
	c := &Client{rest: map[schema.GroupVersion]*rest.RESTClient{}, params: runtime.NewParameterCodec(s), limiter: limiter}
	for _, g := range groups {
		gc := rest.CopyConfig(cfg)
		gv := g.Version
		gc.GroupVersion = &gv
		gc.APIPath = "/apis"
		if gv.Group == "" {
			gc.APIPath = "/api"
		}
		gc.NegotiatedSerializer = codecs.WithoutConversion()
		if gv == coordv1.SchemeGroupVersion {
			gc.RateLimiter = leaseLimiter
		}
		if c.rest[gv], err = rest.RESTClientForConfigAndClient(gc, httpClient); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// Object is an API object type T through its pointer.
type Object[T any] interface {
	*T
	runtime.Object
	GetName() string
}

// ObjectList is a list type L through its pointer.
type ObjectList[L any] interface {
	*L
	runtime.Object
}

// Resource is one kind of object (T, listed as L) in one namespace, or
// cluster-wide, with the calls of client-go's typed clients that executors
// make.
type Resource[T any, PT Object[T], L any, PL ObjectList[L]] struct {
	rc       *rest.RESTClient
	params   runtime.ParameterCodec
	ns, name string
}

// For is the resource called name (the plural: "pods", "jobsets") of the
// group version gv, which the client has (Options.Groups), in namespace
// ("" for a cluster-scoped resource).
func For[T any, PT Object[T], L any, PL ObjectList[L]](c *Client, gv schema.GroupVersion, namespace, name string) Resource[T, PT, L, PL] {
	rc := c.rest[gv]
	if rc == nil {
		panic("kubeclient: no client for API group " + gv.String() + ": add it to Options.Groups")
	}
	return Resource[T, PT, L, PL]{rc: rc, params: c.params, ns: namespace, name: name}
}

// Pods in namespace ns.
func (c *Client) Pods(ns string) Resource[corev1.Pod, *corev1.Pod, corev1.PodList, *corev1.PodList] {
	return For[corev1.Pod, *corev1.Pod, corev1.PodList, *corev1.PodList](c, corev1.SchemeGroupVersion, ns, "pods")
}

// Services in namespace ns.
func (c *Client) Services(ns string) Resource[corev1.Service, *corev1.Service, corev1.ServiceList, *corev1.ServiceList] {
	return For[corev1.Service, *corev1.Service, corev1.ServiceList, *corev1.ServiceList](c, corev1.SchemeGroupVersion, ns, "services")
}

// Nodes of the cluster.
func (c *Client) Nodes() Resource[corev1.Node, *corev1.Node, corev1.NodeList, *corev1.NodeList] {
	return For[corev1.Node, *corev1.Node, corev1.NodeList, *corev1.NodeList](c, corev1.SchemeGroupVersion, "", "nodes")
}

// Leases in namespace ns.
func (c *Client) Leases(ns string) Resource[coordv1.Lease, *coordv1.Lease, coordv1.LeaseList, *coordv1.LeaseList] {
	return For[coordv1.Lease, *coordv1.Lease, coordv1.LeaseList, *coordv1.LeaseList](c, coordv1.SchemeGroupVersion, ns, "leases")
}

func (c *Client) selfSubjectAccessReviews() Resource[authzv1.SelfSubjectAccessReview, *authzv1.SelfSubjectAccessReview, authzv1.SelfSubjectAccessReview, *authzv1.SelfSubjectAccessReview] {
	return For[authzv1.SelfSubjectAccessReview, *authzv1.SelfSubjectAccessReview, authzv1.SelfSubjectAccessReview, *authzv1.SelfSubjectAccessReview](c, authzv1.SchemeGroupVersion, "", "selfsubjectaccessreviews")
}

func (c *Client) selfSubjectReviews() Resource[authnv1.SelfSubjectReview, *authnv1.SelfSubjectReview, authnv1.SelfSubjectReview, *authnv1.SelfSubjectReview] {
	return For[authnv1.SelfSubjectReview, *authnv1.SelfSubjectReview, authnv1.SelfSubjectReview, *authnv1.SelfSubjectReview](c, authnv1.SchemeGroupVersion, "", "selfsubjectreviews")
}

// List lists the objects.
func (r Resource[T, PT, L, PL]) List(ctx context.Context, opts metav1.ListOptions) (*L, error) {
	out := PL(new(L))
	err := r.rc.Get().NamespaceIfScoped(r.ns, r.ns != "").Resource(r.name).
		VersionedParams(&opts, r.params).Do(quiet(ctx)).Into(out)
	return out, err
}

// Get reads one object.
func (r Resource[T, PT, L, PL]) Get(ctx context.Context, name string, opts metav1.GetOptions) (*T, error) {
	out := PT(new(T))
	err := r.rc.Get().NamespaceIfScoped(r.ns, r.ns != "").Resource(r.name).Name(name).
		VersionedParams(&opts, r.params).Do(quiet(ctx)).Into(out)
	return out, err
}

// Create creates an object and returns it as the server stored it.
func (r Resource[T, PT, L, PL]) Create(ctx context.Context, obj *T, opts metav1.CreateOptions) (*T, error) {
	out := PT(new(T))
	err := r.rc.Post().NamespaceIfScoped(r.ns, r.ns != "").Resource(r.name).
		VersionedParams(&opts, r.params).Body(PT(obj)).Do(quiet(ctx)).Into(out)
	return out, err
}

// Update replaces an object (a conflict when it changed since it was read).
func (r Resource[T, PT, L, PL]) Update(ctx context.Context, obj *T, opts metav1.UpdateOptions) (*T, error) {
	out := PT(new(T))
	err := r.rc.Put().NamespaceIfScoped(r.ns, r.ns != "").Resource(r.name).Name(PT(obj).GetName()).
		VersionedParams(&opts, r.params).Body(PT(obj)).Do(quiet(ctx)).Into(out)
	return out, err
}

// Delete deletes an object.
func (r Resource[T, PT, L, PL]) Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error {
	return r.rc.Delete().NamespaceIfScoped(r.ns, r.ns != "").Resource(r.name).Name(name).
		Body(&opts).Do(quiet(ctx)).Error()
}
