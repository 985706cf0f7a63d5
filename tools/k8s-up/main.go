// Command k8s-up starts a real etcd and kube-apiserver on loopback for trying
// `optimus apply --executor kubernetes` and `optimus snapshot kubernetes` by
// hand (make k8s-up). It creates one Ready node per row of a cluster table
// (with nvidia.com/gpu, cpu and memory; other resources in the
// optimus.dev/capacity annotation), plays the kubelets' part so pods reach
// Running, writes an admin kubeconfig, and runs until interrupted. The
// binaries come from scripts/k8s-build.sh (or OPTIMUS_KUBE_APISERVER and
// OPTIMUS_ETCD).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"syscall"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/optimus-sched/optimus/executor/kubernetes/ktest"
	"github.com/optimus-sched/optimus/io/schema"
	"github.com/optimus-sched/optimus/io/table"
	"github.com/optimus-sched/optimus/pipeline/adapt"
)

func main() {
	cluster := flag.String("cluster", "", "create the nodes of this cluster table (any format); none when empty")
	kubeconfig := flag.String("kubeconfig", "out/k8s/kubeconfig", "write the admin kubeconfig here")
	namespace := flag.String("namespace", "default", "namespace of the kubeconfig's context (created if missing)")
	flag.Parse()
	if err := run(*cluster, *kubeconfig, *namespace); err != nil {
		fmt.Fprintln(os.Stderr, "k8s-up:", err)
		os.Exit(1)
	}
}

func run(clusterPath, kubeconfig, namespace string) error {
	apiserver, etcd, missing := ktest.Binaries()
	if missing != "" {
		return fmt.Errorf("%s: run scripts/k8s-build.sh first", missing)
	}
	srv, err := ktest.Start(apiserver, etcd)
	if err != nil {
		return err
	}
	defer srv.Stop()
	admin := srv.Admin()
	ctx := context.Background()
	if clusterPath != "" {
		t, err := table.ReadFile(clusterPath, schema.Cluster)
		if err != nil {
			return err
		}
		capacity := adapt.ReadCapacity(t)
		names := make([]string, 0, len(capacity))
		for n := range capacity {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			node := ktest.NodeObject(ktest.NodeSpec{Name: n, Capacity: capacity[n]})
			got, err := admin.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{})
			if err != nil {
				return err
			}
			got.Status = node.Status
			if _, err := admin.CoreV1().Nodes().UpdateStatus(ctx, got, metav1.UpdateOptions{}); err != nil {
				return err
			}
		}
		fmt.Fprintf(os.Stderr, "k8s-up: created %d nodes from %s\n", len(names), clusterPath)
	}
	if namespace != "default" {
		_, _ = admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: namespace}}, metav1.CreateOptions{})
	}
	if err := os.MkdirAll(filepath.Dir(kubeconfig), 0o755); err != nil {
		return err
	}
	dir, err := os.MkdirTemp(filepath.Dir(kubeconfig), ".kubeconfig-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	path, err := srv.WriteKubeconfig(dir, ktest.AdminToken, namespace)
	if err != nil {
		return err
	}
	if err := os.Rename(path, kubeconfig); err != nil {
		return err
	}
	stop := ktest.Kubelet(admin)
	defer stop()
	fmt.Fprintf(os.Stderr, "k8s-up: kube-apiserver at %s; export KUBECONFIG=%s; Ctrl-C stops it\n", srv.Host, kubeconfig)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	<-sig
	fmt.Fprintln(os.Stderr, "k8s-up: stopping")
	return nil
}
