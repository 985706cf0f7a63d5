package solve

import (
	"fmt"
	"github.com/optimus-sched/optimus/registry"
	"strings"

	"github.com/optimus-sched/optimus/io/schema"
)

// Policy names an allocation policy.
type Policy string

// PolicyEntry is one allocation policy of the registry. Each policy is one
// file (policy_<name>.go) that registers its entry from init; the lists of
// policies (Policies, the help and completion of `optimus solve --policy`
// and `optimus simulate --policies`, the schema's enumeration of policy
// names) all derive from the registry, so adding a policy is adding one
// file.
type PolicyEntry struct {
	Name Policy
	// Order places the policy in lists (help, completion, the schema's
	// enumeration): ascending, policies without one (0) last, ties by name.
	Order int
	// Short is one line for lists; Long the paragraph of `optimus solve
	// --help` (how it allocates, and its source).
	Short, Long string
	// Knobs are the options the policy reads, bound to flags of `optimus
	// solve` and `optimus simulate` (a knob may be shared by policies).
	Knobs []*Knob
	// AdaptsBatch says that the policy chooses each job's batch size for
	// its allocation (Pollux): optimus simulate then runs its jobs with
	// the batch it picks and measures progress in examples weighted by
	// their statistical efficiency, rather than in steps of a fixed batch.
	AdaptsBatch bool
	// plan allocates in; opts has its defaults filled in and is valid.
	plan func(in *instance, opts Options) *plan
}

var (
	policies = registry.New[*PolicyEntry]("allocation policy")
	// Policies lists every policy, the default first (Optimus), in the
	// registry's order.
	Policies []Policy
)

// registerPolicy adds a policy to the registry; each policy's file calls it
// from init.
func registerPolicy(e *PolicyEntry) {
	if e.plan == nil || e.Short == "" || e.Long == "" {
		panic(fmt.Sprintf("solve: policy %q needs a plan function, a Short and a Long help", e.Name))
	}
	policies.Add(string(e.Name), e.Order, e)
	Policies = Policies[:0]
	var names []string
	for _, e := range PolicyEntries() {
		Policies = append(Policies, e.Name)
		names = append(names, string(e.Name))
	}
	schema.AllocPolicies.Set(names...)
}

// PolicyEntries lists the registered policies in the registry's order.
func PolicyEntries() []*PolicyEntry { return policies.List() }

// LookupPolicy returns the policy called name, or nil.
func LookupPolicy(name Policy) *PolicyEntry {
	e, _ := policies.Lookup(string(name))
	return e
}

// ParsePolicy returns the policy called name.
func ParsePolicy(name string) (Policy, error) {
	if LookupPolicy(Policy(name)) == nil {
		return "", fmt.Errorf("no policy %q (there are: %s)", name, PolicyNames(", "))
	}
	return Policy(name), nil
}

// PolicyNames joins the policies' names with sep.
func PolicyNames(sep string) string { return strings.Join(policies.Names(), sep) }
