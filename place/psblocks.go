package place

import (
	"fmt"
	"math"
	"slices"
)

// Parameter-server load balance (paper section 5.1). A PS job's parameters
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
	DefaultTinyFraction = 0.01
	// DefaultBigArrayBound is MXNet's MXNET_KVSTORE_BIGARRAY_BOUND, 10^6
	// elements, in float32 bytes.
	DefaultBigArrayBound = 4_000_000
)

// AssignBlocks assigns blocks to opts.Servers servers by the policy.
//
// The optimus policy, with B the total size and p the servers, so that the
// ideal load of a server is B/p:
//
//  1. a block larger than B/p is sliced into ⌈size/(B/p)⌉ near-equal
//     pieces, so that no piece exceeds the ideal load;
//  2. the pieces not tiny (at least TinyFraction·B/p), largest first, go
//     best-fit: to the most loaded server whose load stays within B/p with
//     the piece, or, when none has room, to the least loaded server;
//  3. the tiny pieces, which weigh little in bytes but cost one request
//     each, go largest first to the server with the fewest requests.
//
// Ties go to the server with the smaller load, then fewer requests, then
// the lower index, so the result is deterministic.
func AssignBlocks(blocks []Block, policy BlockPolicy, opts BlockOptions) ([]Piece, error) {
	p := opts.Servers
	if p < 1 {
		return nil, fmt.Errorf("ps-blocks: %d parameter servers: need at least 1", p)
	}
	if opts.TinyFraction == 0 {
		opts.TinyFraction = DefaultTinyFraction
	}
	if opts.BigArrayBound == 0 {
		opts.BigArrayBound = DefaultBigArrayBound
	}
	if !(opts.TinyFraction > 0 && opts.TinyFraction < 1) {
		return nil, fmt.Errorf("ps-blocks: tiny fraction %v: must be in (0, 1)", opts.TinyFraction)
	}
	for _, b := range blocks {
		if b.Bytes < 1 {
			return nil, fmt.Errorf("ps-blocks: block %q has %d bytes", b.Name, b.Bytes)
		}
	}
	switch policy {
	case HashBlocks:
		return hashBlocks(blocks, p, opts.BigArrayBound), nil
	case BalanceBlocks, "":
		return balanceBlocks(blocks, p, opts.TinyFraction), nil
	}
	return nil, fmt.Errorf("ps-blocks: no policy %q (there are: optimus, hash)", policy)
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
	ideal := float64(total) / float64(p)
	var pieces []Piece
	for i, b := range blocks {
		n := 1
		if float64(b.Bytes) > ideal {
			n = int(math.Ceil(float64(b.Bytes) / ideal))
		}
		pieces = append(pieces, sliceBlock(i, b.Bytes, n)...)
	}
	order := make([]int, len(pieces))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if pieces[a].Bytes != pieces[b].Bytes {
			if pieces[a].Bytes > pieces[b].Bytes {
				return -1
			}
			return 1
		}
		return 0
	})
	load := make([]int64, p)
	requests := make([]int, p)
	// lighter reports whether server a is preferred to b as the least loaded.
	lighter := func(a, b int) bool {
		if load[a] != load[b] {
			return load[a] < load[b]
		}
		if requests[a] != requests[b] {
			return requests[a] < requests[b]
		}
		return a < b
	}
	tiny := tinyFraction * ideal
	for _, i := range order {
		pc := &pieces[i]
		best := -1
		if float64(pc.Bytes) >= tiny {
			// Best fit within the ideal load, else the least loaded.
			for s := range p {
				if float64(load[s]+pc.Bytes) > ideal*(1+1e-12) {
					continue
				}
				if best < 0 || load[s] > load[best] || load[s] == load[best] && lighter(s, best) {
					best = s
				}
			}
			if best < 0 {
				best = 0
				for s := 1; s < p; s++ {
					if lighter(s, best) {
						best = s
					}
				}
			}
		} else {
			best = 0
			for s := 1; s < p; s++ {
				if requests[s] < requests[best] || requests[s] == requests[best] && lighter(s, best) {
					best = s
				}
			}
		}
		pc.Server = best
		load[best] += pc.Bytes
		requests[best]++
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
