package adapt_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/optimus-sched/optimus/datasets"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/pipeline/adapt"
	"github.com/optimus-sched/optimus/place"
)

// VGG-16's blocks, read from a ps_blocks table, come back whole from the
// ps_assignment table of either policy (the pieces of a block add up to
// it, at increasing offsets), and the ps_balance table holds
// place.Balance's figures.
func TestPSBlocksTablesOnVGG16(t *testing.T) {
	bs, err := datasets.ParameterBlocks("vgg-16")
	if err != nil {
		t.Fatal(err)
	}
	var csv strings.Builder
	csv.WriteString("block,bytes\n")
	for _, b := range bs {
		fmt.Fprintf(&csv, "%s,%d\n", b.Name, b.Bytes)
	}
	blocks := adapt.Blocks(readCSV(t, "blocks.csv", csv.String(), schema.PSBlocks))
	if len(blocks) != len(bs) || blocks[0].Name != bs[0].Name || blocks[len(bs)-1].Bytes != bs[len(bs)-1].Bytes {
		t.Fatalf("blocks %v, want %v", blocks, bs)
	}
	const servers = 4
	policies := []place.BlockPolicy{place.BalanceBlocks, place.HashBlocks}
	results := map[place.BlockPolicy][]place.Piece{}
	for _, pol := range policies {
		pieces, err := place.AssignBlocks(blocks, pol, place.BlockOptions{Servers: servers, TinyFraction: place.DefaultTinyFraction, BigArrayBound: place.DefaultBigArrayBound})
		if err != nil {
			t.Fatal(err)
		}
		results[pol] = pieces
		out, err := adapt.PSAssignmentTable(blocks, pieces, pol)
		if err != nil {
			t.Fatal(err)
		}
		sum, next := map[string]int64{}, map[string]int64{}
		names, bytes, offsets, ps, pols := out.Strings("block"), out.Int64s("bytes"), out.Int64s("offset_bytes"), out.Int64s("ps"), out.Strings("policy")
		for i := range names {
			if offsets[i] != next[names[i]] || ps[i] < 0 || ps[i] >= servers || pols[i] != string(pol) {
				t.Fatalf("%s row %d: %s at offset %d (want %d) on server %d, policy %s", pol, i+1, names[i], offsets[i], next[names[i]], ps[i], pols[i])
			}
			sum[names[i]] += bytes[i]
			next[names[i]] += bytes[i]
		}
		for _, b := range blocks {
			if sum[b.Name] != b.Bytes {
				t.Errorf("%s: block %s has %d bytes in its pieces, want %d", pol, b.Name, sum[b.Name], b.Bytes)
			}
		}
	}
	bal, err := adapt.PSBalanceTable(policies, results, len(blocks), servers)
	if err != nil {
		t.Fatal(err)
	}
	if bal.NumRows() != len(policies) {
		t.Fatalf("%d balance rows, want %d", bal.NumRows(), len(policies))
	}
	for i, pol := range policies {
		b := place.Balance(results[pol], len(blocks), servers)
		if got := bal.Strings("policy")[i]; got != string(pol) || bal.Int64s("max_bytes")[i] != b.MaxBytes || bal.Float64s("bytes_imbalance")[i] != b.BytesImbalance || bal.Int64s("pieces")[i] != int64(b.Pieces) {
			t.Errorf("row %d (%s): not place.Balance's %+v", i+1, got, b)
		}
	}
}
