package place

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/optimus-sched/optimus/datasets"
)

func modelBlocks(t *testing.T, model string) []Block {
	t.Helper()
	bs, err := datasets.ParameterBlocks(model)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]Block, len(bs))
	for i, b := range bs {
		out[i] = Block{b.Name, b.Bytes}
	}
	return out
}

// checkPieces verifies that the pieces of every block cover it exactly,
// in order, each on a valid server.
func checkPieces(t *testing.T, blocks []Block, pieces []Piece, servers int) {
	t.Helper()
	next := make([]int64, len(blocks))
	count := make([]int, len(blocks))
	for _, pc := range pieces {
		if pc.Server < 0 || pc.Server >= servers {
			t.Fatalf("%s piece %d on server %d of %d", blocks[pc.Block].Name, pc.Piece, pc.Server, servers)
		}
		if pc.Offset != next[pc.Block] || pc.Bytes < 1 || pc.Piece != count[pc.Block] {
			t.Fatalf("%s piece %d at offset %d (%d bytes): expected offset %d", blocks[pc.Block].Name, pc.Piece, pc.Offset, pc.Bytes, next[pc.Block])
		}
		next[pc.Block] += pc.Bytes
		count[pc.Block]++
	}
	for i, b := range blocks {
		if next[i] != b.Bytes {
			t.Errorf("%s: pieces cover %d of %d bytes", b.Name, next[i], b.Bytes)
		}
	}
	for _, pc := range pieces {
		if pc.Pieces != count[pc.Block] {
			t.Errorf("%s: piece says %d pieces, there are %d", blocks[pc.Block].Name, pc.Pieces, count[pc.Block])
		}
	}
}

// On real models the paper's balancing keeps every server within a few
// percent of the ideal load, far better than the framework's default.
func TestBlockBalanceOnRealModels(t *testing.T) {
	for _, model := range datasets.BlockModels() {
		blocks := modelBlocks(t, model)
		for _, servers := range []int{1, 2, 3, 4, 6, 8, 16} {
			t.Run(fmt.Sprintf("%s/%d", model, servers), func(t *testing.T) {
				var bal [2]BlockBalance
				for i, policy := range []BlockPolicy{BalanceBlocks, HashBlocks} {
					pieces, err := AssignBlocks(blocks, policy, BlockOptions{Servers: servers})
					if err != nil {
						t.Fatal(err)
					}
					checkPieces(t, blocks, pieces, servers)
					bal[i] = Balance(pieces, len(blocks), servers)
				}
				o, h := bal[0], bal[1]
				t.Logf("bytes max/mean: optimus %.3f, hash %.3f; requests on the busiest server: optimus %d, hash %d (of %d and %d pieces)",
					o.BytesImbalance, h.BytesImbalance, o.MaxRequests, h.MaxRequests, o.Pieces, h.Pieces)
				if o.BytesImbalance > 1.005 {
					t.Errorf("optimus: most loaded server at %.3f of the mean", o.BytesImbalance)
				}
				if o.MaxRequests > h.MaxRequests {
					t.Errorf("optimus: busiest server has %d requests, hash %d", o.MaxRequests, h.MaxRequests)
				}
			})
		}
	}
}

func TestBlockAssignmentRules(t *testing.T) {
	blocks := []Block{{"big", 10_000_000}, {"mid", 3_000_000}, {"a", 100}, {"b", 100}, {"c", 100}, {"d", 100}}
	// hash: the big block (>= 4 MB) is split over both servers, the others
	// go to (key*9973) mod 2: keys 1, 3, 5 (odd) to server 1, 2, 4 to 0.
	pieces, err := AssignBlocks(blocks, HashBlocks, BlockOptions{Servers: 2})
	if err != nil {
		t.Fatal(err)
	}
	checkPieces(t, blocks, pieces, 2)
	got := ""
	for _, pc := range pieces {
		got += fmt.Sprintf("%s/%d@%d ", blocks[pc.Block].Name, pc.Piece, pc.Server)
	}
	if want := "big/0@0 big/1@1 mid/0@1 a/0@0 b/0@1 c/0@0 d/0@1 "; got != want {
		t.Errorf("hash: %s, want %s", got, want)
	}
	// optimus: 13 MB not tiny, 6.5 MB per server: big fills server 0 to
	// 6.5 MB and its 3.5 MB rest goes to server 1 with mid; the four tiny
	// blocks (under 1% of the mean) go two to each.
	pieces, err = AssignBlocks(blocks, BalanceBlocks, BlockOptions{Servers: 2})
	if err != nil {
		t.Fatal(err)
	}
	checkPieces(t, blocks, pieces, 2)
	got = ""
	for _, pc := range pieces {
		got += fmt.Sprintf("%s/%d:%d@%d ", blocks[pc.Block].Name, pc.Piece, pc.Bytes, pc.Server)
	}
	if want := "big/0:6500000@0 big/1:3500000@1 mid/0:3000000@1 a/0:100@0 b/0:100@1 c/0:100@0 d/0:100@1 "; got != want {
		t.Errorf("optimus: %s, want %s", got, want)
	}
	for _, bad := range []BlockOptions{{Servers: 0}, {Servers: 2, TinyFraction: 1.5}} {
		if _, err := AssignBlocks(blocks, BalanceBlocks, bad); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
	if _, err := AssignBlocks(blocks, "random", BlockOptions{Servers: 2}); err == nil {
		t.Error("unknown policy: no error")
	}
}

// TestAssignBlocksBoundsWhatSizesAllocations: every argument that sizes an
// allocation or a sum (servers, block bytes, pieces) is bounded, with an
// input error rather than an out-of-memory crash or an overflow.
func TestAssignBlocksBoundsWhatSizesAllocations(t *testing.T) {
	many := make([]Block, 2000)
	for i := range many {
		many[i] = Block{Name: fmt.Sprintf("b%d", i), Bytes: 8 << 20}
	}
	cases := []struct {
		name   string
		blocks []Block
		opts   BlockOptions
		want   string
	}{
		{"no servers", []Block{{"w", 10}}, BlockOptions{Servers: 0}, "need at least 1"},
		{"negative servers", []Block{{"w", 10}}, BlockOptions{Servers: -5}, "need at least 1"},
		{"a billion servers", []Block{{"w", 10}}, BlockOptions{Servers: 1_000_000_000}, "at most 10000"},
		{"one server too many", []Block{{"w", 10}}, BlockOptions{Servers: MaxServers + 1}, "at most 10000"},
		{"block of no bytes", []Block{{"w", 0}}, BlockOptions{Servers: 2}, `block "w" has 0 bytes`},
		{"bytes overflowing int64", []Block{{"a", math.MaxInt64}, {"b", math.MaxInt64}}, BlockOptions{Servers: 2}, "add up to more than"},
		{"bytes beyond float64's exact integers", []Block{{"a", 1 << 52}, {"b", 1 << 52}, {"c", 1}}, BlockOptions{Servers: 2}, `at block "c"`},
		{"pieces beyond the bound", many, BlockOptions{Servers: MaxServers}, "pieces, more than"},
		{"negative bigarray bound", []Block{{"w", 10}}, BlockOptions{Servers: 2, BigArrayBound: -1}, "bigarray bound"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, pol := range []BlockPolicy{BalanceBlocks, HashBlocks} {
				_, err := AssignBlocks(c.blocks, pol, c.opts)
				var be *BlockError
				if !errors.As(err, &be) || !strings.Contains(err.Error(), c.want) {
					t.Errorf("%s: got %v, want a BlockError saying %q", pol, err, c.want)
				}
			}
		})
	}
	// At the bound itself the assignment runs.
	if _, err := AssignBlocks([]Block{{"w", 1 << 30}}, BalanceBlocks, BlockOptions{Servers: MaxServers}); err != nil {
		t.Errorf("at MaxServers: %v", err)
	}
}
