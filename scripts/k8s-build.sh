#!/bin/sh
# k8s-build.sh builds a real kube-apiserver and etcd from the Go module proxy into tools/k8s/bin
# (git-ignored) for the Kubernetes executor's tests and `make k8s-up`. The module tools/k8s keeps
# k8s.io/kubernetes out of the project's own go.mod. A cold build takes minutes; with Go's build
# cache present it takes seconds. A failed build is retried once (a shared build cache can lose
# entries). Prints the two binary paths as shell assignments on stdout.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
mod="$root/tools/k8s"
bin="$mod/bin"
mkdir -p "$bin"
ver=v1.37.2
ldflags="-s -w -X k8s.io/component-base/version.gitVersion=$ver -X k8s.io/component-base/version.gitMajor=1 -X k8s.io/component-base/version.gitMinor=37"

build() { # build OUT PKG
	(cd "$mod" && GOFLAGS=-mod=readonly nice go build -trimpath -ldflags "$ldflags" -o "$bin/$1" "$2")
}
retry() {
	if ! build "$@"; then
		echo "k8s-build: building $1 failed; retrying once" >&2
		build "$@"
	fi
}
start=$(date +%s)
retry etcd ./etcd
mid=$(date +%s)
retry kube-apiserver k8s.io/kubernetes/cmd/kube-apiserver
end=$(date +%s)
echo "k8s-build: etcd $((mid - start))s, kube-apiserver $((end - mid))s" >&2
echo "OPTIMUS_ETCD=$bin/etcd"
echo "OPTIMUS_KUBE_APISERVER=$bin/kube-apiserver"
