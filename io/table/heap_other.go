//go:build !linux

package table

// prepareHeap does nothing: huge pages on request are Linux's.
func prepareHeap(int) {}
