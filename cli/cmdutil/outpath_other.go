//go:build !unix

package cmdutil

// writable is left to the write where access(2) is not at hand.
func writable(string) error { return nil }
