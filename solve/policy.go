package solve

import (
	"cmp"
	"fmt"
	"slices"
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
	// plan allocates in; opts has its defaults filled in and is valid.
	plan func(in *instance, opts Options) *plan
}

var (
	policies = map[Policy]*PolicyEntry{}
	// Policies lists every policy, the default first (Optimus), in the
	// registry's order.
	Policies []Policy
)

// registerPolicy adds a policy to the registry; each policy's file calls it
// from init.
func registerPolicy(e *PolicyEntry) {
	if _, dup := policies[e.Name]; dup || e.Name == "" {
		panic(fmt.Sprintf("solve: policy %q registered twice or without a name", e.Name))
	}
	if e.plan == nil || e.Short == "" || e.Long == "" {
		panic(fmt.Sprintf("solve: policy %q needs a plan function, a Short and a Long help", e.Name))
	}
	policies[e.Name] = e
	Policies = Policies[:0]
	var names []string
	for _, e := range PolicyEntries() {
		Policies = append(Policies, e.Name)
		names = append(names, string(e.Name))
	}
	schema.AllocPolicies.Set(names...)
}

// PolicyEntries lists the registered policies in the registry's order.
func PolicyEntries() []*PolicyEntry {
	out := make([]*PolicyEntry, 0, len(policies))
	for _, e := range policies {
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b *PolicyEntry) int {
		if (a.Order == 0) != (b.Order == 0) {
			if a.Order == 0 {
				return 1
			}
			return -1
		}
		return cmp.Or(cmp.Compare(a.Order, b.Order), strings.Compare(string(a.Name), string(b.Name)))
	})
	return out
}

// LookupPolicy returns the policy called name, or nil.
func LookupPolicy(name Policy) *PolicyEntry { return policies[name] }

// ParsePolicy returns the policy called name.
func ParsePolicy(name string) (Policy, error) {
	if LookupPolicy(Policy(name)) == nil {
		return "", fmt.Errorf("no policy %q (there are: %s)", name, PolicyNames(", "))
	}
	return Policy(name), nil
}

// PolicyNames joins the policies' names with sep.
func PolicyNames(sep string) string {
	names := make([]string, len(Policies))
	for i, p := range Policies {
		names[i] = string(p)
	}
	return strings.Join(names, sep)
}
