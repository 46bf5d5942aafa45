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

# image.sh (make kind-image) builds netfork/kind-node:<version>, a kind node image whose control
# plane runs netfork's kube-apiserver, with no registry: the base from Debian packages and the
# module proxy (or --base-image), every component from this module graph, every image kubeadm
# and kind's manifests name pre-loaded into containerd. Each stage is cached: a rebuild after a
# netfork-only change rebuilds netfork's apiserver and the last image layer only.
#   --base-image IMAGE   use this kind base image (e.g. kindest/base:v20260820-69b56db7 where a
#                        registry is reachable) instead of building netfork/kind-base
#   --tag IMAGE          the node image's name (default netfork/kind-node:<version, + as _>)
source "$(dirname "${BASH_SOURCE[0]}")/../hack/lib/init.sh"
source "${NETFORK_ROOT}/kind/lib/common.sh"
source "${NETFORK_ROOT}/kind/lib/preflight.sh"
source "${NETFORK_ROOT}/kind/lib/build.sh"
source "${NETFORK_ROOT}/kind/lib/base.sh"
source "${NETFORK_ROOT}/kind/lib/images.sh"
source "${NETFORK_ROOT}/kind/lib/node.sh"
source "${NETFORK_ROOT}/kind/lib/loadbalancer.sh"

base_image=""
tag=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --base-image) base_image="${2:?--base-image needs an image}"; shift 2 ;;
    --base-image=*) base_image="${1#*=}"; shift ;;
    --tag) tag="${2:?--tag needs an image name}"; shift 2 ;;
    --tag=*) tag="${1#*=}"; shift ;;
    *) netfork::kind::die "unknown argument $1 (usage: image.sh [--base-image IMAGE] [--tag IMAGE])" ;;
  esac
done

"${NETFORK_ROOT}/hack/install-deps.sh" kind
netfork::kind::require_docker
netfork::kind::require_disk
netfork::version::get_vars
tag="${tag:-$(netfork::kind::node_image_tag)}"

# NETFORK_KIND_CLEANUP lists commands that undo what a build started; run on any exit, so
# Ctrl-C leaves no build container behind (tags are only ever written by a finished commit).
NETFORK_KIND_CLEANUP=()
cleanup() {
  local cmd
  for cmd in "${NETFORK_KIND_CLEANUP[@]}"; do
    ${cmd} >/dev/null 2>&1 || true
  done
  rm -rf "${NETFORK_KIND_OUTPUT}"/rootfs.* "${NETFORK_KIND_OUTPUT}"/save.* "${NETFORK_KIND_IMAGES}"/*.partial
}
trap cleanup EXIT
trap 'exit 130' INT TERM

start=${SECONDS}
if [[ -z "${base_image}" ]]; then
  base_image="$(netfork::kind::base_image)"
elif ! docker image inspect "${base_image}" >/dev/null 2>&1; then
  netfork::run docker pull "${base_image}" || netfork::kind::die "--base-image ${base_image}: not present and cannot be pulled"
fi
netfork::log "base image ${base_image} ($((SECONDS - start))s)"

netfork::kind::build_node
netfork::kind::build_apiservers
netfork::kind::build_addons
netfork::log "binaries built ($((SECONDS - start))s)"

netfork::kind::all_component_images
netfork::kind::build_lb_image
netfork::log "component images saved ($((SECONDS - start))s)"

netfork::kind::prep_image "${base_image}" "${NETFORK_KIND_PREP_ARCHIVES[@]}"
netfork::kind::node_image "${NETFORK_KIND_PREP_IMAGE}" "${tag}" "${NETFORK_KIND_IMAGES}/kube-apiserver.tar"
netfork::log "built ${tag} (${NETFORK_GIT_VERSION}) in $((SECONDS - start))s"
