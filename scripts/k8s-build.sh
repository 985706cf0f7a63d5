#!/bin/sh
# k8s-build.sh builds a real kube-apiserver and etcd from the Go module proxy into tools/k8s/bin
# (git-ignored) for the Kubernetes executor's tests and `make k8s-up`. The module tools/k8s keeps
# k8s.io/kubernetes out of the project's own go.mod. A cold build takes minutes; with Go's build
# cache present it takes seconds. A failed build is retried once (a shared build cache can lose
# entries). Prints the two binary paths, and the path of Kubeflow training-operator's PyTorchJob CRD
# (downloaded from the module proxy into the module cache, never a dependency of tools/k8s), as
# shell assignments on stdout.
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
# The training operator's module carries its CRDs; its Kubernetes versions are not ours, so it is
# downloaded (checked against the checksum database) rather than required.
trainop=github.com/kubeflow/training-operator@v1.8.1
dir=$(cd "$mod" && go mod download -json "$trainop" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
crd="$dir/manifests/base/crds/kubeflow.org_pytorchjobs.yaml"
if [ -z "$dir" ] || [ ! -f "$crd" ]; then
	echo "k8s-build: no PyTorchJob CRD in $trainop (go mod download -json $trainop)" >&2
	exit 1
fi
echo "OPTIMUS_ETCD=$bin/etcd"
echo "OPTIMUS_KUBE_APISERVER=$bin/kube-apiserver"
echo "OPTIMUS_PYTORCHJOB_CRD=$crd"
