//go:build !unix

package table

// addressSpaceLimit cannot tell elsewhere: no limit.
func addressSpaceLimit() int64 { return 0 }
