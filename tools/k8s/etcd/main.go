// Command etcd is the stock etcd server (etcdmain), built from the module proxy for local tests.
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
