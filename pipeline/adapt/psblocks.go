package adapt

import (
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/schema/col"
	"github.com/optimus-sched/optimus/io/table"
	"github.com/optimus-sched/optimus/place"
)

// Blocks reads a ps_blocks table: a model's parameter blocks in the order
// the framework registers them.
func Blocks(t *table.Table) []place.Block {
	names, bytes := t.Strings(col.Block), t.Int64s(col.Bytes)
	blocks := make([]place.Block, len(names))
	for i := range names {
		blocks[i] = place.Block{Name: names[i], Bytes: bytes[i]}
	}
	return blocks
}

// PSAssignmentTable writes the pieces of blocks that policy assigned to
// servers as a ps_assignment table, one row per block or slice of a block.
func PSAssignmentTable(blocks []place.Block, pieces []place.Piece, policy place.BlockPolicy) (*table.Table, error) {
	n := len(pieces)
	names, pols := make([]string, n), make([]string, n)
	piece, count, offset, bytes, server := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	for i, pc := range pieces {
		names[i], pols[i] = blocks[pc.Block].Name, string(policy)
		piece[i], count[i], offset[i], bytes[i], server[i] = int64(pc.Piece), int64(pc.Pieces), pc.Offset, pc.Bytes, int64(pc.Server)
	}
	t := table.New(schema.PSAssignment, n)
	t.SetStrings(col.Block, names, nil)
	t.SetInt64s(col.Piece, piece, nil)
	t.SetInt64s(col.Pieces, count, nil)
	t.SetInt64s(col.OffsetBytes, offset, nil)
	t.SetInt64s(col.Bytes, bytes, nil)
	t.SetInt64s(col.PS, server, nil)
	t.SetStrings(col.Policy, pols, nil)
	return table.Conform(t)
}

// PSBalanceTable writes the load balance of each policy's assignment of
// blocks blocks to servers servers (place.Balance) as a ps_balance table,
// one row per policy in the given order.
func PSBalanceTable(policies []place.BlockPolicy, results map[place.BlockPolicy][]place.Piece, blocks, servers int) (*table.Table, error) {
	n := len(policies)
	names := make([]string, n)
	var srv, nb, np, maxB, minB, maxR, minR []int64
	var bi, ri []float64
	for i, pol := range policies {
		b := place.Balance(results[pol], blocks, servers)
		names[i] = string(pol)
		srv, nb, np = append(srv, int64(b.Servers)), append(nb, int64(b.Blocks)), append(np, int64(b.Pieces))
		maxB, minB, maxR, minR = append(maxB, b.MaxBytes), append(minB, b.MinBytes), append(maxR, int64(b.MaxRequests)), append(minR, int64(b.MinRequests))
		bi, ri = append(bi, b.BytesImbalance), append(ri, b.RequestsImbalance)
	}
	t := table.New(schema.PSBalance, n)
	t.SetStrings(col.Policy, names, nil)
	t.SetInt64s(col.Servers, srv, nil)
	t.SetInt64s(col.Blocks, nb, nil)
	t.SetInt64s(col.Pieces, np, nil)
	t.SetInt64s(col.MaxBytes, maxB, nil)
	t.SetInt64s(col.MinBytes, minB, nil)
	t.SetFloat64s(col.BytesImbalance, bi, nil)
	t.SetInt64s(col.MaxRequests, maxR, nil)
	t.SetInt64s(col.MinRequests, minR, nil)
	t.SetFloat64s(col.RequestsImbalance, ri, nil)
	return table.Conform(t)
}
