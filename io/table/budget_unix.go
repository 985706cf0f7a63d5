//go:build unix

package table

import "syscall"

// addressSpaceLimit is the address space the process may map (ulimit -v),
// or 0 when unlimited.
func addressSpaceLimit() int64 {
	var l syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &l); err != nil || l.Cur > 1<<62 {
		return 0
	}
	return int64(l.Cur)
}
