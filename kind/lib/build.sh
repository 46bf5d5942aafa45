#!/usr/bin/env bash
# Copyright 2026 The netfork Authors.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

# build.sh compiles every binary the kind node image carries, each from the module graph that
# pins it: netfork's apiserver and upstream's from the main module, the node components from
# kind/node, containerd/runc/CNI plugins/local-path-provisioner in their own modules as
# released, CoreDNS from kind/coredns, pause from upstream's C source. Sourced after
# common.sh. Go's build cache makes a rebuild with nothing changed a relink at most.

# NETFORK_KIND_BIN is where the binaries land, one folder per image or layer.
NETFORK_KIND_BIN="${NETFORK_KIND_OUTPUT}/bin"

# netfork::kind::build_node builds the upstream node components, etcd, agnhost and the kind CLI.
# kind/node resolves the main module's versions of what they share (the pins are checked by
# hack/verify-kind-modules.sh), and they are built as make build builds the apiservers (cgo on,
# no -trimpath), so those packages come from Go's build cache instead of a second compile; the
# images that carry them therefore carry the Debian rootfs for glibc.
netfork::kind::build_node() {
  mkdir -p "${NETFORK_KIND_BIN}/node"
  netfork::kind::warm_if "${NETFORK_KIND_BIN}/node/kubelet" netfork::kind::heavy \
    go build -C "${NETFORK_KIND_NODE_MODULE}" -o "${NETFORK_KIND_BIN}/node/" -ldflags "$(netfork::kind::upstream_ldflags)" \
    k8s.io/kubernetes/cmd/kubelet k8s.io/kubernetes/cmd/kubeadm k8s.io/kubernetes/cmd/kubectl \
    k8s.io/kubernetes/cmd/kube-proxy k8s.io/kubernetes/cmd/kube-controller-manager \
    k8s.io/kubernetes/cmd/kube-scheduler go.etcd.io/etcd/server/v3 sigs.k8s.io/kind \
    github.com/netfork/netfork/kind/node/cmd/...
  # go build names etcd's binary after its module path without the major version: server.
  mv -f "${NETFORK_KIND_BIN}/node/server" "${NETFORK_KIND_BIN}/node/etcd"
}

# netfork::kind::build_apiservers builds netfork's kube-apiserver (hack/build.sh) and
# upstream's from the same module graph, stamped with upstream's version. Both are built as
# make build and hack/bench-services.sh build them (cgo on, no -trimpath), so Go's build cache
# from those serves here too; their images therefore carry the Debian rootfs for glibc.
# netfork's is stripped, so it goes to a folder of its own, not make build's _output/bin.
netfork::kind::build_apiservers() {
  mkdir -p "${NETFORK_KIND_BIN}/upstream"
  WHAT=cmd/kube-apiserver NETFORK_BIN_DIR="${NETFORK_KIND_BIN}/netfork" GOLDFLAGS="-s -w" \
    netfork::kind::warm_if "${NETFORK_KIND_BIN}/netfork/kube-apiserver" netfork::kind::heavy hack/build.sh
  netfork::kind::warm_if "${NETFORK_KIND_BIN}/upstream/kube-apiserver" netfork::kind::heavy go build -o "${NETFORK_KIND_BIN}/upstream/kube-apiserver" \
    -ldflags "$(netfork::kind::upstream_ldflags)" k8s.io/kubernetes/cmd/kube-apiserver
}

# netfork::kind::build_in_module builds packages inside a released module's own directory in
# the module cache, so they link exactly the dependencies that release pins.
#   $1 module  $2 version  $3 output dir  $4.. go build arguments (packages relative to it)
netfork::kind::build_in_module() {
  local module="$1" version="$2" out="$3" dir
  shift 3
  dir="$(netfork::kind::module_dir "${module}" "${version}")"
  mkdir -p "${out}"
  (cd "${dir}" && GOFLAGS=-mod=mod netfork::kind::heavy go build -trimpath -o "${out}/" "$@")
}

# netfork::kind::build_runtime builds containerd, ctr, the runc shim, runc (with seccomp),
# the CNI plugins kind uses and the fuse-overlayfs snapshotter, as kind's base Dockerfile does.
netfork::kind::build_runtime() {
  local out="${NETFORK_KIND_BIN}/runtime" stamp
  stamp="containerd=${CONTAINERD_VERSION} runc=${RUNC_VERSION} cni=${CNI_PLUGINS_VERSION} fuse=${FUSE_OVERLAYFS_VERSION}"
  if [[ "$(cat "${out}/.stamp" 2>/dev/null)" == "${stamp}" ]]; then
    netfork::log "runtime binaries up to date (${stamp})"
    return 0
  fi
  rm -rf "${out}"
  CGO_ENABLED=0 netfork::kind::build_in_module github.com/containerd/containerd/v2 "${CONTAINERD_VERSION}" \
    "${out}/bin" -tags "no_aufs no_zfs no_btrfs no_devmapper" -ldflags "-s -w -X github.com/containerd/containerd/v2/version.Version=${CONTAINERD_VERSION}" \
    ./cmd/containerd ./cmd/ctr ./cmd/containerd-shim-runc-v2
  CGO_ENABLED=1 netfork::kind::build_in_module github.com/opencontainers/runc "${RUNC_VERSION}" \
    "${out}/sbin" -tags seccomp -ldflags "-s -w -X main.version=${RUNC_VERSION#v}" .
  CGO_ENABLED=0 netfork::kind::build_in_module github.com/containernetworking/plugins "${CNI_PLUGINS_VERSION}" \
    "${out}/cni" -ldflags "-s -w" ./plugins/ipam/host-local ./plugins/main/loopback ./plugins/main/ptp ./plugins/meta/portmap
  CGO_ENABLED=0 netfork::kind::build_in_module github.com/containerd/fuse-overlayfs-snapshotter/v2 "${FUSE_OVERLAYFS_VERSION}" \
    "${out}/bin" -ldflags "-s -w" ./cmd/containerd-fuse-overlayfs-grpc
  echo "${stamp}" >"${out}/.stamp"
}

# netfork::kind::build_addons builds CoreDNS (kind/coredns), pause (upstream's C source,
# static) and local-path-provisioner (its released module).
netfork::kind::build_addons() {
  local pause_src
  mkdir -p "${NETFORK_KIND_BIN}/addons"
  CGO_ENABLED=0 netfork::kind::warm_if "${NETFORK_KIND_BIN}/addons/coredns" netfork::kind::heavy \
    go build -C "${NETFORK_ROOT}/kind/coredns" -trimpath \
    -ldflags "-s -w" -o "${NETFORK_KIND_BIN}/addons/coredns" .
  pause_src="$(netfork::kind::module_dir k8s.io/kubernetes "${K8S_VERSION}")/build/pause/linux/pause.c"
  if [[ ! -x "${NETFORK_KIND_BIN}/addons/pause" || "${pause_src}" -nt "${NETFORK_KIND_BIN}/addons/pause" ]]; then
    netfork::run gcc -Os -Wall -Werror -static -DVERSION="v$(netfork::kind::pause_version)" \
      -o "${NETFORK_KIND_BIN}/addons/pause" "${pause_src}"
  fi
  CGO_ENABLED=0 netfork::kind::warm_if "${NETFORK_KIND_BIN}/addons/local-path-provisioner" \
    netfork::kind::build_in_module github.com/rancher/local-path-provisioner \
    "${LOCAL_PATH_PROVISIONER_VERSION}" "${NETFORK_KIND_BIN}/addons" -ldflags "-s -w" .
}

# netfork::kind::kubeadm_images prints the images kubeadm deploys for K8S_VERSION, asking the
# kubeadm that was just built, so the tags are exactly the ones it will look for.
netfork::kind::kubeadm_images() {
  "${NETFORK_KIND_BIN}/node/kubeadm" config images list --kubernetes-version "${K8S_VERSION}" 2>/dev/null
}

# netfork::kind::pause_version prints the pause tag kubeadm names (e.g. 3.10.2).
netfork::kind::pause_version() {
  local image
  image="$(netfork::kind::kubeadm_images | grep '/pause:')"
  echo "${image##*:}"
}
