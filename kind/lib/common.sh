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

# common.sh holds what every kind script shares: versions, paths and names. It is sourced
# after hack/lib/init.sh, so NETFORK_ROOT and NETFORK_OUTPUT are set.

# shellcheck disable=SC2034 # the constants below are read by the libraries and scripts that source this one
source "${NETFORK_ROOT}/hack/lib/version.sh"

# A failure inside $(...) must stop the script too: several steps print their result.
shopt -s inherit_errexit

# NETFORK_KIND_OUTPUT holds binaries, image archives and build contexts of the kind path;
# made here, since on a fresh clone nothing else has made it when a build step's mktemp runs.
NETFORK_KIND_OUTPUT="${NETFORK_OUTPUT}/kind"
mkdir -p "${NETFORK_KIND_OUTPUT}"
# NETFORK_KIND_NODE_MODULE is the Go module the node components are built from.
NETFORK_KIND_NODE_MODULE="${NETFORK_ROOT}/kind/node"
# KIND_VERSION is the kind release whose CLI, base files and manifests netfork's images follow.
KIND_VERSION="$(netfork::gomod::require "${NETFORK_KIND_NODE_MODULE}/go.mod" sigs.k8s.io/kind)"
# K8S_VERSION is the upstream release every node component is built from (go.mod's pin).
K8S_VERSION="$(netfork::gomod::k8s_version "${NETFORK_ROOT}/go.mod")"
# Versions of what kind's base image carries, built here from the module proxy.
CONTAINERD_VERSION="v2.3.4"
RUNC_VERSION="v1.4.3"
CNI_PLUGINS_VERSION="v1.9.1"
FUSE_OVERLAYFS_VERSION="v2.1.7"
LOCAL_PATH_PROVISIONER_VERSION="v0.0.30"
# DEBIAN_SUITE and DEBIAN_MIRROR feed debootstrap (kind v0.33.0's base is trixie-slim).
DEBIAN_SUITE="${DEBIAN_SUITE:-trixie}"
DEBIAN_MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
# NETFORK_KIND_MIN_FREE_GB is the free disk an image build or a cluster needs.
NETFORK_KIND_MIN_FREE_GB=15

# netfork::kind::die prints one line naming the problem and exits non-zero.
netfork::kind::die() {
  netfork::log "$*"
  exit 1
}

# netfork::kind::kind_dir prints kind's module directory in the module cache, downloading it
# if needed, since its base files and manifests are read from there at build time.
netfork::kind::kind_dir() {
  netfork::kind::module_dir sigs.k8s.io/kind "${KIND_VERSION}"
}

# netfork::kind::module_dir prints one module's directory in the module cache.
netfork::kind::module_dir() {
  local dir
  dir="$(go mod download -json "$1@$2" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')"
  if [[ -z "${dir}" || ! -d "${dir}" ]]; then
    echo "could not download $1@$2 through the module proxy" >&2
    return 1
  fi
  echo "${dir}"
}

# netfork::kind::upstream_ldflags prints -ldflags that stamp upstream's release version with a
# fixed build date (the release's module time), so rebuilt binaries are byte-identical and the
# image layers holding them stay cached.
netfork::kind::upstream_ldflags() {
  local time pkg flags=("-s" "-w")
  time="$(sed -n 's/.*"Time":"\([^"]*\)".*/\1/p' \
    "$(go env GOMODCACHE)/cache/download/k8s.io/kubernetes/@v/${K8S_VERSION}.info" 2>/dev/null || true)"
  [[ "${K8S_VERSION}" =~ ^v([0-9]+)\.([0-9]+) ]]
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    flags+=(
      "-X '${pkg}.gitVersion=${K8S_VERSION}'"
      "-X '${pkg}.gitMajor=${BASH_REMATCH[1]}'"
      "-X '${pkg}.gitMinor=${BASH_REMATCH[2]}'"
      "-X '${pkg}.gitTreeState=clean'"
      "-X '${pkg}.buildDate=${time:-1970-01-01T00:00:00Z}'"
    )
  done
  echo "${flags[*]}"
}

# netfork::kind::heavy runs a potentially cold, CPU-heavy build under the build lock
# (netfork::with_build_lock), so that two cold builds never share the CPU.
# NETFORK_KIND_WARM=1 (see netfork::kind::warm_if) runs without the lock: a rebuild of a
# binary that exists is incremental.
netfork::kind::heavy() {
  if [[ "${NETFORK_KIND_WARM:-}" == 1 ]]; then
    netfork::run "$@"
    return
  fi
  netfork::with_build_lock "$@"
}

# netfork::kind::node_image_tag prints the default node image name: netfork/kind-node:<netfork
# version>, with "+" written "_" as kubeadm writes it in image tags (docker tags have no "+").
netfork::kind::node_image_tag() {
  netfork::version::get_vars
  echo "netfork/kind-node:${NETFORK_GIT_VERSION//+/_}"
}

# netfork::kind::warm_if runs a build command ("netfork::kind::heavy ..." inside) without the
# build lock when its output $1 already exists, since Go's cache then makes it incremental.
netfork::kind::warm_if() {
  local out="$1"
  shift
  if [[ -e "${out}" ]]; then
    NETFORK_KIND_WARM=1 "$@"
  else
    "$@"
  fi
}
