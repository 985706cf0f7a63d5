// Package schemacmd implements `optimus schema`: describe the tables.
package schemacmd

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/optimus-sched/optimus/cli/cmdutil"
	"github.com/optimus-sched/optimus/cli/iostreams"
	"github.com/optimus-sched/optimus/io/schema"
)

// NewCmd returns `optimus schema`.
func NewCmd(ios *iostreams.IOStreams) *cobra.Command {
	var markdown, asJSON bool
	cmd := &cobra.Command{
		Use:   "schema [TABLE]",
		Short: "Describe the tables optimus reads and writes",
		Long: `Schema lists the tables, or describes one table's columns: type, unit, whether it is
required, its rules and its meaning. --markdown prints docs/tables.md; --json prints the
declarations for programs (all tables, or the one named, with inherited columns).`,
		Example: `  optimus schema
  optimus schema jobs
  optimus schema --json jobs`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return cmdutil.Usagef("schema takes at most one argument, a table's name (optimus schema lists them); got %d", len(args))
			}
			return nil
		},
		ValidArgs: schema.Names(),
		RunE: func(cmd *cobra.Command, args []string) error {
			if markdown && asJSON {
				return cmdutil.Usagef("--markdown and --json exclude each other")
			}
			var t *schema.Table // the table asked for; nil: all of them
			if len(args) == 1 {
				if t = schema.Lookup(args[0]); t == nil {
					return cmdutil.Usagef("no table %q (known: %s)", args[0], strings.Join(schema.Names(), ", "))
				}
			}
			if asJSON {
				return writeJSON(ios.Out, t)
			}
			if markdown {
				if t != nil {
					_, err := fmt.Fprint(ios.Out, schema.TableMarkdown(t))
					return err
				}
				_, err := fmt.Fprint(ios.Out, schema.Markdown())
				return err
			}
			w := tabwriter.NewWriter(ios.Out, 0, 4, 2, ' ', 0)
			if t == nil {
				for _, t := range schema.All {
					fmt.Fprintf(w, "%s\tv%d\t%s\n", t.Name, t.Version, t.Doc)
				}
				return w.Flush()
			}
			fmt.Fprintf(ios.Out, "%s (schema version %d): %s\n\n", t.Name, t.Version, t.Doc)
			fmt.Fprintln(w, "COLUMN\tTYPE\tUNIT\tREQUIRED\tNULLABLE\tRULES\tMEANING")
			for _, c := range t.AllColumns() {
				req := "no"
				if c.Required {
					req = "yes"
				} else if c.Default != "" {
					req = "default " + c.Default
				}
				null := "no"
				if c.Nullable {
					null = "yes"
				}
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", c.Name, c.Type, c.Unit, req, null, schema.Rules(c), c.Doc)
			}
			for _, p := range t.AllPatterns() {
				fmt.Fprintf(w, "%s<resource>\t%s\t%s\t\t\t\t%s\n", p.Prefix, p.Type, p.Unit, p.Doc)
			}
			return w.Flush()
		},
	}
	cmd.Flags().BoolVar(&markdown, "markdown", false, "print Markdown documentation (docs/tables.md)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the table declarations as JSON")
	return cmd
}
