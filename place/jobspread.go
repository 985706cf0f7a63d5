package place

// JobSpread says how evenly a job's tasks lie over the nodes it uses and what
// share of its traffic crosses nodes, from its count of PS and workers on
// each of those nodes (perNode(i) for i < k; a node listed holds at least
// one task). With p PS and w workers in all, the tasks lie evenly when
// every node holds ⌊p/k⌋ or ⌈p/k⌉ PS and ⌊w/k⌋ or ⌈w/k⌉ workers; the
// cross-node share is 1 - Σ_i n_i·m_i / (p·w) (the package documentation),
// and for an all-reduce job (no PS) the share of its worker pairs on
// different nodes, 1 - Σ_i m_i·(m_i - 1) / (w·(w - 1)), 0 below two
// workers. These are JobPlacement's Even and CrossTraffic.
func JobSpread(k int, perNode func(i int) (ps, workers int)) (even bool, crossTraffic float64) {
	p, w := 0, 0
	for i := range k {
		n, m := perNode(i)
		p, w = p+n, w+m
	}
	local, sameWorkers := 0, 0
	even = k > 0
	for i := range k {
		n, m := perNode(i)
		local += n * m
		sameWorkers += m * (m - 1)
		if n != p/k && n != (p+k-1)/k || m != w/k && m != (w+k-1)/k {
			even = false
		}
	}
	switch {
	case p > 0:
		return even, 1 - float64(local)/float64(p*w)
	case w < 2:
		return even, 0
	}
	return even, 1 - float64(sameWorkers)/float64(w*(w-1))
}
