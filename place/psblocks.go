package place

import (
	"fmt"
	"math"
	"slices"
)

// Parameter-server load balance (paper section 5). A PS job's parameters
// come in blocks (one per weight or bias array) that the framework spreads
// over its p parameter servers; every step each worker pushes its gradients
// for every piece and pulls it back, one request per piece. A step ends when
// the slowest server has served its bytes and requests, so the assignment
// should make both even.

// Block is one parameter block.
type Block struct {
	Name  string
	Bytes int64
}

// Piece is a block, or a slice of one, assigned to a server.
type Piece struct {
	Block         int // index into the blocks
	Piece, Pieces int // slice index and number of slices of the block
	Offset, Bytes int64
	Server        int
}

// BlockPolicy names a way to assign blocks to servers.
type BlockPolicy string

// Block assignment policies.
const (
	// BalanceBlocks is the paper's algorithm (see AssignBlocks).
	BalanceBlocks BlockPolicy = "optimus"
	// HashBlocks is MXNet's default (kvstore_dist.h, EncodeKey): a block of
	// fewer than BigArrayBound bytes goes whole to server (key·9973) mod p,
	// where key is its registration order; a larger one is cut into p even
	// slices, one per server.
	HashBlocks BlockPolicy = "hash"
)

// BlockOptions tune AssignBlocks.
type BlockOptions struct {
	Servers int
	// TinyFraction: blocks smaller than this fraction of the mean load per
	// server are assigned by request count, not size (0: DefaultTinyFraction).
	TinyFraction float64
	// BigArrayBound is the hash policy's size from which blocks are split
	// over every server, in bytes (0: DefaultBigArrayBound).
	BigArrayBound int64
}

// Defaults of BlockOptions.
const (
	DefaultTinyFraction = 0.001
	// DefaultBigArrayBound is MXNet's MXNET_KVSTORE_BIGARRAY_BOUND, 10^6
	// elements, in float32 bytes.
	DefaultBigArrayBound = 4_000_000
)

// AssignBlocks assigns blocks to opts.Servers servers by the policy.
//
// The optimus policy (after the paper's section 5: even parameter size
// and even update requests on every server, large blocks sliced). With t
// the tiny threshold, TinyFraction of the mean load per server, and B the
// bytes of the blocks not tiny, the ideal load of a server is B/p:
//
//  1. blocks of at least t bytes, largest first, fill the servers like
//     water: each goes to the least loaded server; when it would take that
//     server beyond B/p it is sliced, the slice that brings the server to
//     B/p stays there and the rest goes on to the next least loaded server.
//     Slices smaller than t are not cut: such a remainder goes whole. So a
//     block is sliced only where balance needs it, into pieces as large as
//     a server's share allows, and every server ends within t of B/p;
//  2. the tiny blocks, which weigh little in bytes but cost one request
//     each, go largest first to the server with the fewest requests.
//
// Ties go to the server with the smaller load, then fewer requests, then
// the lower index, so the result is deterministic. Pieces are returned by
// block, then slice.
func AssignBlocks(blocks []Block, policy BlockPolicy, opts BlockOptions) ([]Piece, error) {
	p := opts.Servers
	if p < 1 {
		return nil, blockErrorf("ps-blocks: %d parameter servers: need at least 1", p)
	}
	if p > MaxServers {
		return nil, blockErrorf("ps-blocks: %d parameter servers: at most %d", p, MaxServers)
	}
	if opts.TinyFraction == 0 {
		opts.TinyFraction = DefaultTinyFraction
	}
	if opts.BigArrayBound == 0 {
		opts.BigArrayBound = DefaultBigArrayBound
	}
	if !(opts.TinyFraction > 0 && opts.TinyFraction < 1) {
		return nil, blockErrorf("ps-blocks: tiny fraction %v: must be in (0, 1)", opts.TinyFraction)
	}
	if opts.BigArrayBound < 1 {
		return nil, blockErrorf("ps-blocks: bigarray bound %d: must be at least 1 byte", opts.BigArrayBound)
	}
	var total int64
	pieces := 0 // the hash policy's, the larger count
	for _, b := range blocks {
		if b.Bytes < 1 {
			return nil, blockErrorf("ps-blocks: block %q has %d bytes", b.Name, b.Bytes)
		}
		if b.Bytes > MaxTotalBytes-total {
			return nil, blockErrorf("ps-blocks: the blocks add up to more than %d bytes (at block %q), beyond what the balance can sum exactly", int64(MaxTotalBytes), b.Name)
		}
		total += b.Bytes
		if b.Bytes >= opts.BigArrayBound {
			pieces += p
		} else {
			pieces++
		}
	}
	if pieces > MaxPieces {
		return nil, blockErrorf("ps-blocks: %d blocks on %d servers: the hash policy would cut them into %d pieces, more than %d", len(blocks), p, pieces, MaxPieces)
	}
	switch policy {
	case HashBlocks:
		return hashBlocks(blocks, p, opts.BigArrayBound), nil
	case BalanceBlocks, "":
		return balanceBlocks(blocks, p, opts.TinyFraction), nil
	}
	return nil, blockErrorf("ps-blocks: no policy %q (there are: optimus, hash)", policy)
}

// Bounds of AssignBlocks' arguments, so that no input sizes an allocation
// or a computation beyond reach (the assignment takes time in the pieces
// times the servers) and byte sums stay exact in float64.
const (
	MaxServers    = 10_000
	MaxPieces     = 10_000_000
	MaxTotalBytes = 1 << 53
)

// BlockError is a problem with AssignBlocks' arguments: the caller's input,
// not a failure (the CLI exits 2 on it).
type BlockError struct{ Msg string }

func (e *BlockError) Error() string { return e.Msg }

// InvalidInput marks the error as one of the input.
func (e *BlockError) InvalidInput() bool { return true }

func blockErrorf(format string, args ...any) error {
	return &BlockError{Msg: fmt.Sprintf(format, args...)}
}

// sliceBlock cuts size bytes into n near-equal slices as MXNet does: slice i
// spans [round(size·i/n), round(size·(i+1)/n)).
func sliceBlock(block int, size int64, n int) []Piece {
	out := make([]Piece, 0, n)
	for i := range n {
		lo := int64(math.Round(float64(size) * float64(i) / float64(n)))
		hi := int64(math.Round(float64(size) * float64(i+1) / float64(n)))
		if hi > lo {
			out = append(out, Piece{Block: block, Offset: lo, Bytes: hi - lo})
		}
	}
	for i := range out {
		out[i].Piece, out[i].Pieces = i, len(out)
	}
	return out
}

func hashBlocks(blocks []Block, p int, bound int64) []Piece {
	var out []Piece
	for key, b := range blocks {
		if b.Bytes < bound {
			out = append(out, Piece{Block: key, Pieces: 1, Bytes: b.Bytes, Server: (key * 9973) % p})
			continue
		}
		for i, pc := range sliceBlock(key, b.Bytes, p) {
			pc.Server = i
			out = append(out, pc)
		}
	}
	return out
}

func balanceBlocks(blocks []Block, p int, tinyFraction float64) []Piece {
	var total int64
	for _, b := range blocks {
		total += b.Bytes
	}
	tiny := int64(tinyFraction * float64(total) / float64(p))
	var big int64
	for _, b := range blocks {
		if b.Bytes >= tiny {
			big += b.Bytes
		}
	}
	ideal := float64(big) / float64(p)
	order := make([]int, len(blocks))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case blocks[a].Bytes > blocks[b].Bytes:
			return -1
		case blocks[a].Bytes < blocks[b].Bytes:
			return 1
		}
		return 0
	})
	load := make([]int64, p)
	requests := make([]int, p)
	leastLoaded := func() int {
		best := 0
		for s := 1; s < p; s++ {
			if load[s] < load[best] || load[s] == load[best] && requests[s] < requests[best] {
				best = s
			}
		}
		return best
	}
	fewestRequests := func() int {
		best := 0
		for s := 1; s < p; s++ {
			if requests[s] < requests[best] || requests[s] == requests[best] && load[s] < load[best] {
				best = s
			}
		}
		return best
	}
	perBlock := make([][]Piece, len(blocks))
	put := func(block, server int, offset, bytes int64) {
		perBlock[block] = append(perBlock[block], Piece{Block: block, Offset: offset, Bytes: bytes, Server: server})
		load[server] += bytes
		requests[server]++
	}
	for _, i := range order {
		b := blocks[i]
		if b.Bytes < tiny {
			put(i, fewestRequests(), 0, b.Bytes)
			continue
		}
		// Slices keep whole float32 elements when the block is made of them.
		align := int64(1)
		if b.Bytes%4 == 0 {
			align = 4
		}
		var offset int64
		for offset < b.Bytes {
			s := leastLoaded()
			rest := b.Bytes - offset
			room := int64(ideal-float64(load[s])) / align * align
			if rest-room < max(tiny, 1) || room < max(tiny, 1) {
				put(i, s, offset, rest)
				break
			}
			put(i, s, offset, room)
			offset += room
		}
	}
	var pieces []Piece
	for _, ps := range perBlock {
		for k := range ps {
			ps[k].Piece, ps[k].Pieces = k, len(ps)
		}
		pieces = append(pieces, ps...)
	}
	return pieces
}

// BlockBalance sums up an assignment: per-server load and requests.
type BlockBalance struct {
	Servers, Blocks, Pieces  int
	Load                     []int64 // bytes per server
	Requests                 []int   // pieces per server
	MaxBytes, MinBytes       int64
	BytesImbalance           float64 // max / mean load
	MaxRequests, MinRequests int
	RequestsImbalance        float64 // max / mean requests
}

// Balance measures an assignment of blocks to servers servers.
func Balance(pieces []Piece, blocks, servers int) BlockBalance {
	b := BlockBalance{Servers: servers, Blocks: blocks, Pieces: len(pieces),
		Load: make([]int64, servers), Requests: make([]int, servers)}
	var total int64
	for _, pc := range pieces {
		b.Load[pc.Server] += pc.Bytes
		b.Requests[pc.Server]++
		total += pc.Bytes
	}
	b.MaxBytes, b.MinBytes = slices.Max(b.Load), slices.Min(b.Load)
	b.MaxRequests, b.MinRequests = slices.Max(b.Requests), slices.Min(b.Requests)
	if total > 0 {
		b.BytesImbalance = float64(b.MaxBytes) / (float64(total) / float64(servers))
	}
	if len(pieces) > 0 {
		b.RequestsImbalance = float64(b.MaxRequests) / (float64(len(pieces)) / float64(servers))
	}
	return b
}
