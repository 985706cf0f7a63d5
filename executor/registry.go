package executor

import (
	"context"
	"fmt"
	"github.com/optimus-sched/optimus/registry"
	"io"
	"sort"
	"strings"

	"github.com/spf13/pflag"
)

// Kind is one kind of executor: what optimus apply's --executor names. Each
// executor package registers its Kind from init (Register); apply's usage,
// help, --executor validation, the flags each executor owns and the shell's
// completion all derive from the registered kinds, so adding an executor is
// adding one package and linking it in (package executor/all).
type Kind struct {
	Name string
	// Short says in a few words what it does, for lists ("changes
	// nothing").
	Short string
	// Long is its paragraph in apply's help, wrapped at 74 columns.
	Long string
	// Order places it in lists, lowest first, 0 after every kind with one
	// (print, which changes nothing, comes first);
	// kinds of equal Order go by name.
	Order int
	// ReadsCluster: the executor reads what runs now and the nodes from
	// the cluster itself, so apply's --current and --cluster do not apply.
	ReadsCluster bool
	// ChangesNothing: every action it reports is planned, so apply never
	// records a state after it (and takes no lock on one: a state on a
	// read-only file system can still be looked at).
	ChangesNothing bool
	// NewConfig returns the executor's configuration with its defaults,
	// unbound; apply binds its flags, checks it and builds the executor
	// from it.
	NewConfig func() Config
	// FileFlags are those of its flags that take a file's path: the shell
	// completes their values with files.
	FileFlags []string
}

// Config is one executor's configuration, as its flags set it.
type Config interface {
	// AddFlags defines the executor's own flags on fs. Two kinds may
	// define the same flag (with the same type): apply sets both. A flag
	// annotated with Needs applies to this kind only along with the flag
	// the annotation names.
	AddFlags(fs *pflag.FlagSet)
	// Check validates the configuration once the flags are parsed, before
	// any input is read; its errors are the user's (UsageError).
	Check() error
	// New builds the executor.
	New(ctx context.Context, env Env) (Executor, error)
}

// StdoutWriter is a Config whose executor may write to Env.Stdout: apply
// then writes the actions table only to a file (-o).
type StdoutWriter interface {
	WritesStdout() bool
}

// Env is what apply hands every executor it builds.
type Env struct {
	// Current is what runs now, from --current (nil: nothing), and
	// Capacity each node's capacity per resource, from --cluster (nil: not
	// checked); kinds that ReadsCluster get neither.
	Current  []Task
	Capacity map[string]map[string]float64
	// Stdout is optimus' standard output (print --manifests writes there).
	Stdout io.Writer
}

// Needs is the annotation (pflag.FlagSet.SetAnnotation) of an executor's
// flag that applies only along with another of its flags: print's
// --namespace needs --manifests.
const Needs = "optimus.dev/needs"

// UsageError is a configuration the user got wrong: optimus exits 2.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// InvalidInput marks the error as the caller's (cli/cmdutil.ExitCode).
func (e *UsageError) InvalidInput() bool { return true }

// Usagef returns a UsageError.
func Usagef(format string, args ...any) error {
	return &UsageError{Msg: fmt.Sprintf(format, args...)}
}

var kinds = registry.New[*Kind]("executor")

// Register adds an executor kind; each executor package calls it from
// init.
func Register(k *Kind) {
	if k.Name == "" || k.Short == "" || k.Long == "" || k.NewConfig == nil {
		panic("executor: kind " + k.Name + " needs a name, Short, Long and NewConfig")
	}
	fs := pflag.NewFlagSet(k.Name, pflag.ContinueOnError)
	k.NewConfig().AddFlags(fs)
	mustDefine("executor "+k.Name, fs, k.FileFlags)
	kinds.Add(k.Name, k.Order, k)
}

// mustDefine panics unless fs defines every one of names.
func mustDefine(what string, fs *pflag.FlagSet, names []string) {
	for _, name := range names {
		if fs.Lookup(name) == nil {
			panic(fmt.Sprintf("executor: %s lists --%s among its FileFlags but defines no such flag", what, name))
		}
	}
}

// FileFlags are the names of the flags that take a file's path, of every
// registered kind and snapshot source, sorted.
func FileFlags() []string {
	seen := map[string]bool{}
	for _, k := range Kinds() {
		for _, f := range k.FileFlags {
			seen[f] = true
		}
	}
	for _, s := range Sources() {
		for _, f := range s.FileFlags {
			seen[f] = true
		}
	}
	out := make([]string, 0, len(seen))
	for f := range seen {
		out = append(out, f)
	}
	sort.Strings(out)
	return out
}

// Kinds lists the registered kinds by Order, then name.
func Kinds() []*Kind { return kinds.List() }

// Names lists the registered kinds' names, in Kinds' order.
func Names() []string { return kinds.Names() }

// Lookup returns the kind called name, or nil.
func Lookup(name string) *Kind {
	k, _ := kinds.Lookup(name)
	return k
}

// OrList joins names as "a, b or c".
func OrList(names []string) string { return list(names, " or ") }

// AndList joins names as "a, b and c".
func AndList(names []string) string { return list(names, " and ") }

func list(names []string, last string) string {
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + last + names[len(names)-1]
}
