package root

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/optimus-sched/optimus/datasets"
	"github.com/optimus-sched/optimus/datasets/datatables"
	"github.com/optimus-sched/optimus/executor"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/place"
	"github.com/optimus-sched/optimus/solve"
)

// tableExtensions are the file types a table flag takes.
var tableExtensions = []string{"parquet", "arrow", "arrows", "csv"}

// tableFlags name a table file: the shell completes them with table files
// only.
var tableFlags = map[string]bool{
	"input": true, "output": true, "cluster": true, "jobs": true, "loss": true, "speed": true,
	"models": true, "current": true, "predictions": true, "allocation": true, "plan": true,
	"suggestions": true, "workload": true, "profiles": true, "profile-speeds": true,
	"allocations": true, "utilisation": true,
}

// fileFlags name some other file, with the extension it must have ("" for
// any): simulate's --philly, and the flags the executors and snapshot
// sources say take files (executor.FileFlags).
var fileFlags = func() map[string]string {
	m := map[string]string{"philly": "csv"}
	for _, f := range executor.FileFlags() {
		m[f] = ""
	}
	return m
}()
var dirFlags = map[string]bool{"dir": true, "simulation": true}

func strs[T ~string](xs []T) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = string(x)
	}
	return out
}

// flagValues lists the values a flag takes, by command path (most
// specific first) and flag name; "" matches any command.
func flagValues(path, flag string) []string {
	switch {
	case flag == "policy" && strings.HasSuffix(path, " place"):
		return placePolicies()
	case flag == "policy" && strings.HasSuffix(path, " ps-blocks"):
		return []string{string(place.BalanceBlocks), string(place.HashBlocks)}
	case flag == "policy" || flag == "policies":
		var out []string
		for _, e := range solve.PolicyEntries() {
			out = append(out, string(e.Name)+"\t"+e.Short)
		}
		return out
	case flag == "placement":
		// pollux is simulate's own (simulatecmd.polluxPlacement).
		return append(placePolicies(), "pollux\tas Pollux's simulator places jobs (with --pollux)")
	case flag == "capacity":
		return strs(solve.CapacityChecks)
	case flag == "remaining":
		return []string{"p10", "p50", "p90"}
	case flag == "format" && (strings.HasSuffix(path, " export") || strings.Contains(path, " snapshot ")):
		return tableExtensions
	case flag == "format":
		return []string{"arrows", "arrow", "parquet", "csv", "text"}
	case flag == "as":
		return schema.Names()
	case flag == "executor":
		return executor.Names()
	case flag == "sampling":
		return []string{"suggest", "random"}
	case flag == "knowledge":
		return []string{"fitted", "oracle"}
	case flag == "model" && strings.HasSuffix(path, " ps-blocks"):
		return datasets.BlockModels()
	}
	return nil
}

// placePolicies are the placement policies with their help lines.
func placePolicies() []string {
	var out []string
	for _, e := range place.PolicyEntries() {
		out = append(out, string(e.Name)+"\t"+e.Short)
	}
	return out
}

// addCompletions registers, on every command of the tree, the completion
// of its flags' values: fixed choices (policies, formats, quantiles, table
// kinds, dataset and model names) and files filtered by extension.
func addCompletions(cmd *cobra.Command) {
	path := cmd.CommandPath()
	cmd.LocalFlags().VisitAll(func(f *pflag.Flag) {
		name := f.Name
		if vals := flagValues(path, name); vals != nil {
			_ = cmd.RegisterFlagCompletionFunc(name, func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
				return vals, cobra.ShellCompDirectiveNoFileComp
			})
			return
		}
		switch ext, other := fileFlags[name]; {
		case tableFlags[name]:
			_ = cmd.MarkFlagFilename(name, tableExtensions...)
		case other && ext != "":
			_ = cmd.MarkFlagFilename(name, ext)
		case other:
			_ = cmd.MarkFlagFilename(name)
		case dirFlags[name]:
			_ = cmd.MarkFlagDirname(name)
		}
	})
	if path == "optimus datasets export" && cmd.ValidArgsFunction == nil {
		cmd.ValidArgsFunction = func(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var names []string
			for _, d := range datatables.Catalog {
				names = append(names, d.Name)
			}
			return names, cobra.ShellCompDirectiveNoFileComp
		}
	}
	for _, c := range cmd.Commands() {
		addCompletions(c)
	}
}
