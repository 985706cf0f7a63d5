package placecmd

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/optimus-sched/optimus/cli/cmdutil"
	"github.com/optimus-sched/optimus/cli/iostreams"
	"github.com/optimus-sched/optimus/datasets"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
	"github.com/optimus-sched/optimus/pipeline/adapt"
	"github.com/optimus-sched/optimus/place"
)

// BlocksOptions are `place ps-blocks`'s inputs.
type BlocksOptions struct {
	IO            *iostreams.IOStreams
	Input         string
	Model         string
	Servers       int
	Policy        string
	Compare       bool
	TinyFraction  float64
	BigArrayBound int64
	Output        cmdutil.OutputOptions
}

// NewCmdBlocks returns `optimus place ps-blocks`.
func NewCmdBlocks(ios *iostreams.IOStreams, runF func(*BlocksOptions) error) *cobra.Command {
	opts := &BlocksOptions{IO: ios}
	cmd := &cobra.Command{
		Use:   "ps-blocks --ps N (-i FILE | --model NAME)",
		Short: "Spread a model's parameter blocks evenly over its parameter servers",
		Long: `ps-blocks assigns a model's parameter blocks (a ps_blocks table: block, bytes, in the
order the framework registers them; or a built-in model's, by --model) to N parameter
servers, and writes one row per block or slice of a block with its server.

Policies (--policy):
  optimus  the paper's balancing (section 5): blocks largest first to the least loaded
           server, sliced where a block would take it beyond the ideal load (total / N),
           the rest going on to the next server; tiny blocks (below --tiny of the mean
           load) to the server with the fewest requests
  hash     MXNet's default: blocks below --bigarray-bound bytes whole to server
           (key * 9973) mod N, larger ones split evenly over every server

--compare writes instead one row per policy with the most and least loaded server's bytes
and requests (a ps_balance table): the slowest server sets the pace of every step.`,
		Example: `  optimus place ps-blocks --model vgg-16 --ps 4 --compare --format text
  optimus place ps-blocks -i blocks.csv --ps 8 -o assignment.parquet`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return RunBlocks(opts)
		},
	}
	cmdutil.InputFlag(cmd, &opts.Input, "ps_blocks")
	cmd.Flags().StringVar(&opts.Model, "model", "", "use a built-in model's blocks instead of an input table: "+strings.Join(datasets.BlockModels(), ", "))
	cmd.Flags().IntVar(&opts.Servers, "ps", 0, "number of parameter servers `N` (required)")
	cmd.Flags().StringVar(&opts.Policy, "policy", string(place.BalanceBlocks), "assignment `POLICY`: optimus or hash")
	cmd.Flags().BoolVar(&opts.Compare, "compare", false, "write the load balance of every policy (a ps_balance table) instead of the assignment")
	cmd.Flags().Float64Var(&opts.TinyFraction, "tiny", place.DefaultTinyFraction, "optimus: blocks below this `FRACTION` of the mean load per server are placed by request count, and no slice is smaller")
	cmd.Flags().Int64Var(&opts.BigArrayBound, "bigarray-bound", place.DefaultBigArrayBound, "hash: `BYTES` from which a block is split over every server")
	opts.Output.AddOutputFlags(cmd)
	return cmd
}

// RunBlocks assigns the blocks.
func RunBlocks(opts *BlocksOptions) error {
	if err := opts.Output.Validate(); err != nil {
		return err
	}
	if opts.Servers < 1 {
		return cmdutil.Usagef("--ps N is required: the number of parameter servers (at least 1)")
	}
	policy := place.BlockPolicy(opts.Policy)
	if policy != place.BalanceBlocks && policy != place.HashBlocks {
		return cmdutil.Usagef("--policy %q: use optimus or hash", opts.Policy)
	}
	if !(opts.TinyFraction > 0 && opts.TinyFraction < 1) {
		return cmdutil.Usagef("--tiny %v: give a fraction in (0, 1)", opts.TinyFraction)
	}
	if opts.BigArrayBound < 1 {
		return cmdutil.Usagef("--bigarray-bound %d: give a number of bytes >= 1", opts.BigArrayBound)
	}
	var blocks []place.Block
	if opts.Model != "" {
		if opts.Input != "" {
			return cmdutil.Usagef("give either -i or --model, not both")
		}
		bs, err := datasets.ParameterBlocks(opts.Model)
		if err != nil {
			return cmdutil.Usagef("--model: %v", err)
		}
		for _, b := range bs {
			blocks = append(blocks, place.Block{Name: b.Name, Bytes: b.Bytes})
		}
	} else {
		t, err := cmdutil.ReadInput(opts.IO, opts.Input, schema.PSBlocks)
		if err != nil {
			return err
		}
		blocks = adapt.Blocks(t)
	}
	bopts := place.BlockOptions{Servers: opts.Servers, TinyFraction: opts.TinyFraction, BigArrayBound: opts.BigArrayBound}
	results := map[place.BlockPolicy][]place.Piece{}
	for _, pol := range []place.BlockPolicy{place.BalanceBlocks, place.HashBlocks} {
		pieces, err := place.AssignBlocks(blocks, pol, bopts)
		if err != nil {
			return err
		}
		results[pol] = pieces
	}
	for _, pol := range []place.BlockPolicy{place.BalanceBlocks, place.HashBlocks} {
		b := place.Balance(results[pol], len(blocks), opts.Servers)
		cmdutil.Summaryf(opts.IO, "ps-blocks (%s): %d blocks in %d pieces on %d servers: bytes max %d min %d (max/mean %.3f); requests max %d min %d (max/mean %.3f)",
			pol, b.Blocks, b.Pieces, b.Servers, b.MaxBytes, b.MinBytes, b.BytesImbalance, b.MaxRequests, b.MinRequests, b.RequestsImbalance)
	}
	var out *table.Table
	var err error
	if opts.Compare {
		out, err = adapt.PSBalanceTable([]place.BlockPolicy{place.BalanceBlocks, place.HashBlocks}, results, len(blocks), opts.Servers)
	} else {
		out, err = adapt.PSAssignmentTable(blocks, results[policy], policy)
	}
	if err != nil {
		return err
	}
	return opts.Output.Write(opts.IO, out)
}
