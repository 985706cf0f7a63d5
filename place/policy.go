package place

import (
	"fmt"
	"github.com/optimus-sched/optimus/registry"
	"slices"
	"strings"

	"github.com/optimus-sched/optimus/io/schema"
)

// Policy names a placement policy.
type Policy string

// PolicyEntry is one placement policy of the registry. Each policy is one
// file (policy_<name>.go) that registers its entry from init; Policies, the
// help, validation and completion of `optimus place --policy` and `optimus
// simulate --placement`, and the plan table's job_method values all derive
// from the registry.
type PolicyEntry struct {
	Name Policy
	// Order places the policy in lists: ascending, policies without one (0)
	// last, ties by name.
	Order int
	// Short is one line for lists; Long the paragraph of `optimus place
	// --help`.
	Short, Long string
	// Methods are the JobPlacement.Method values the policy writes for the
	// jobs it places, besides the MethodKept and MethodSolve of Place.
	Methods []string
	// Repair makes Place, when the first pass leaves a job waiting or short,
	// place again with the jobs that failed first and where solve fitted
	// them (see Place).
	Repair bool
	// placeJob places job j's tasks and sets its Method.
	placeJob func(pl *placer, j int)
}

var (
	policies = registry.New[*PolicyEntry]("placement policy")
	// Policies lists every placement policy, the default first (Optimus),
	// in the registry's order.
	Policies []Policy
)

// coreMethods are the methods Place itself writes, whatever the policy.
var coreMethods = []string{MethodKept, MethodSolve}

// registerPolicy adds a policy to the registry; each policy's file calls it
// from init.
func registerPolicy(e *PolicyEntry) {
	if e.placeJob == nil || e.Short == "" || e.Long == "" || len(e.Methods) == 0 {
		panic(fmt.Sprintf("place: policy %q needs a place function, a Short and a Long help and its methods", e.Name))
	}
	policies.Add(string(e.Name), e.Order, e)
	Policies = Policies[:0]
	methods := slices.Clone(coreMethods)
	for _, e := range PolicyEntries() {
		Policies = append(Policies, e.Name)
		for _, m := range e.Methods {
			if !slices.Contains(methods, m) {
				methods = append(methods, m)
			}
		}
	}
	schema.PlaceMethods.Set(methods...)
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
		return "", fmt.Errorf("no placement policy %q (there are: %s)", name, PolicyNames(", "))
	}
	return Policy(name), nil
}

// PolicyNames joins the policies' names with sep.
func PolicyNames(sep string) string { return strings.Join(policies.Names(), sep) }

// Validate checks the options as a command gives them: a policy of the
// registry and at least one candidate node (Place itself takes "" for
// Optimus and 0 for DefaultCandidates). The error names the flag.
func (o Options) Validate() error {
	if LookupPolicy(o.Policy) == nil {
		_, err := ParsePolicy(string(o.Policy))
		return fmt.Errorf("--policy: %w", err)
	}
	if o.Candidates < 1 {
		return fmt.Errorf("--candidates %d: give at least 1", o.Candidates)
	}
	return nil
}

// WithDefaults returns o with the zero values Options documents filled in
// (Policy, Candidates), as Place takes them.
func (o Options) WithDefaults() Options {
	if o.Policy == "" {
		o.Policy = Optimus
	}
	if o.Candidates <= 0 {
		o.Candidates = DefaultCandidates
	}
	return o
}

// DefaultOptions returns the options `optimus place` starts from.
func DefaultOptions() Options { return Options{Policy: Optimus, Candidates: DefaultCandidates} }
