package solve

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Knob is one option of the policies that read it: a field of Options and
// the flag that sets it, the same flag in `optimus solve` and `optimus
// simulate` (cli/cmdutil.BindSolveFlags binds every knob of the registry).
type Knob struct {
	Flag string // the flag's name: "tetris-srtf"
	// Usage is the flag's help; a word in backticks names its value. The
	// help prefixes the names of the policies that read the knob.
	Usage string
	// Value is the knob's field of o as a flag value.
	Value func(o *Options) FlagValue
	// Check says what is wrong with the knob's value in o ("" when it is
	// valid), as advice: "give a weight in [0, 1]".
	Check func(o *Options) string
}

// FlagValue is a knob's field as a command-line flag: pflag.Value's methods,
// so that package solve needs no flag library.
type FlagValue interface {
	String() string
	Set(string) error
	Type() string
}

// Knobs lists the knobs of the registered policies, in the registry's
// order, each once.
func Knobs() []*Knob {
	var out []*Knob
	for _, e := range PolicyEntries() {
		for _, k := range e.Knobs {
			if !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
	}
	return out
}

// KnobUsage is k's help, prefixed with the policies that read it:
// "drf, tetris: most PS ...".
func KnobUsage(k *Knob) string {
	var names []string
	for _, e := range PolicyEntries() {
		if slices.Contains(e.Knobs, k) {
			names = append(names, string(e.Name))
		}
	}
	return strings.Join(names, ", ") + ": " + k.Usage
}

// Validate checks the options as a command gives them: a policy of the
// registry, a capacity check, and every knob's value, whichever policy reads
// it. The error names the flag and the value: "--tetris-srtf 2: give a
// weight in [0, 1]". Solve fills in the zero values it documents (Policy,
// Capacity, BaselineCap, TiresiasThresholds, RestartPayback) before it
// validates.
func (o Options) Validate() error {
	if LookupPolicy(o.Policy) == nil {
		_, err := ParsePolicy(string(o.Policy))
		return fmt.Errorf("--policy: %w", err)
	}
	if _, err := ParseCapacity(string(o.Capacity)); err != nil {
		return fmt.Errorf("--capacity: %w", err)
	}
	for _, k := range Knobs() {
		if why := k.Check(&o); why != "" {
			return fmt.Errorf("--%s %s: %s", k.Flag, k.Value(&o).String(), why)
		}
	}
	return nil
}

// WithDefaults returns o with the zero values Options documents filled in
// (Policy, Capacity, BaselineCap, TiresiasThresholds, RestartPayback), as
// Solve takes them.
func (o Options) WithDefaults() Options {
	if o.Policy == "" {
		o.Policy = Optimus
	}
	if o.Capacity == "" {
		o.Capacity = NodeCapacity
	}
	if o.BaselineCap == 0 {
		o.BaselineCap = DefaultBaselineCap
	}
	if o.TiresiasThresholds == nil {
		o.TiresiasThresholds = DefaultTiresiasThresholds
	}
	if o.RestartPayback == 0 {
		o.RestartPayback = DefaultRestartPayback
	}
	return o
}

// nonNegative is the Check of a knob that takes a finite number >= 0.
func nonNegative(field func(*Options) *float64, advice string) func(*Options) string {
	return func(o *Options) string {
		if x := *field(o); !(x >= 0) || math.IsInf(x, 0) {
			return advice
		}
		return ""
	}
}

// floatFlag is a float64 field as a flag.
type floatFlag struct{ p *float64 }

func (f floatFlag) String() string { return strconv.FormatFloat(*f.p, 'g', -1, 64) }
func (f floatFlag) Type() string   { return "float64" }
func (f floatFlag) Set(s string) error {
	x, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return err
	}
	*f.p = x
	return nil
}

// intFlag is an int field as a flag.
type intFlag struct{ p *int }

func (f intFlag) String() string { return strconv.Itoa(*f.p) }
func (f intFlag) Type() string   { return "int" }
func (f intFlag) Set(s string) error {
	x, err := strconv.ParseInt(s, 0, strconv.IntSize)
	if err != nil {
		return err
	}
	*f.p = int(x)
	return nil
}

// scaledFloatsFlag is a []float64 field given as a comma-separated list in
// another unit: the field holds each value times scale (GPU-hours on the
// command line, worker-seconds in Options). The first Set replaces the
// default, later ones append, as pflag's slices do.
type scaledFloatsFlag struct {
	p     *[]float64
	scale float64
	set   bool
}

func (f *scaledFloatsFlag) Type() string { return "float64Slice" }
func (f *scaledFloatsFlag) String() string {
	parts := make([]string, len(*f.p))
	for i, x := range *f.p {
		parts[i] = strconv.FormatFloat(x/f.scale, 'g', -1, 64)
	}
	return "[" + strings.Join(parts, ",") + "]"
}
func (f *scaledFloatsFlag) Set(s string) error {
	var xs []float64
	for _, part := range strings.Split(s, ",") {
		x, err := strconv.ParseFloat(strings.TrimSpace(part), 64)
		if err != nil {
			return err
		}
		xs = append(xs, x*f.scale)
	}
	if !f.set {
		*f.p, f.set = nil, true
	}
	*f.p = append(*f.p, xs...)
	return nil
}
