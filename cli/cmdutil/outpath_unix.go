//go:build unix

package cmdutil

import "golang.org/x/sys/unix"

// writable reports why this process cannot create files in dir (nil when
// it can): access(2) with write and search permission, which also fails
// on a read-only file system.
func writable(dir string) error { return unix.Access(dir, unix.W_OK|unix.X_OK) }
