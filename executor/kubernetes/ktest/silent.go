package ktest

import (
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// SilentServer listens on a free loopback port, accepts every connection
// and never answers: the API server of a hung or hostile cluster. It
// returns its address ("127.0.0.1:PORT") and a kubeconfig file for it
// (namespace "training"); the connections close when the test ends.
func SilentServer(t testing.TB) (addr, kubeconfig string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	addr = ln.Addr().String()
	kubeconfig = filepath.Join(t.TempDir(), "kubeconfig")
	cfg := `apiVersion: v1
kind: Config
clusters: [{name: silent, cluster: {server: "http://` + addr + `"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: silent, context: {cluster: silent, user: u, namespace: training}}]
current-context: silent
`
	if err := os.WriteFile(kubeconfig, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	return addr, kubeconfig
}
