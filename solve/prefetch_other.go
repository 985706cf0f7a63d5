//go:build !amd64

package solve

import "unsafe"

// prefetch is a hint only (see prefetch_amd64.go): elsewhere it does
// nothing.
func prefetch(unsafe.Pointer) {}
