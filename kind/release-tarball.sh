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

# release-tarball.sh (make release-tarball) writes _output/release/kubernetes-server-linux-amd64.tar.gz
# in upstream's release layout, so that `kind build node-image --type file <tarball>` builds a
# netfork node image wherever kind can pull its addon images: kubernetes/version, and in
# kubernetes/server/bin/ kubeadm, kubelet, kubectl, kube-apiserver (netfork's),
# kube-controller-manager, kube-scheduler, kube-proxy, each component's image archive tagged
# registry.k8s.io/<name>-amd64:<version> and its .docker_tag, as upstream's release has them.
source "$(dirname "${BASH_SOURCE[0]}")/../hack/lib/init.sh"
source "${NETFORK_ROOT}/kind/lib/common.sh"
source "${NETFORK_ROOT}/kind/lib/preflight.sh"
source "${NETFORK_ROOT}/kind/lib/build.sh"
source "${NETFORK_ROOT}/kind/lib/base.sh"
source "${NETFORK_ROOT}/kind/lib/images.sh"

[[ $# -eq 0 ]] || netfork::kind::die "release-tarball.sh takes no arguments"
"${NETFORK_ROOT}/hack/install-deps.sh" kind
netfork::kind::require_docker
netfork::kind::require_disk
netfork::kind::build_node
netfork::kind::build_apiservers
netfork::kind::build_addons
netfork::kind::all_component_images

release="${NETFORK_OUTPUT}/release"
stage="$(mktemp -d "${NETFORK_KIND_OUTPUT}/release.XXXXXX")"
trap 'rm -rf "${stage}"' EXIT
bin="${stage}/kubernetes/server/bin"
mkdir -p "${bin}"
echo "${K8S_VERSION}" >"${stage}/kubernetes/version"
for name in kubeadm kubelet kubectl kube-controller-manager kube-scheduler kube-proxy; do
  cp "${NETFORK_KIND_BIN}/node/${name}" "${bin}/${name}"
done
cp "${NETFORK_KIND_BIN}/netfork/kube-apiserver" "${bin}/kube-apiserver"
for name in kube-apiserver kube-controller-manager kube-scheduler kube-proxy; do
  netfork::kind::save_as "netfork/kind-img-${name}:latest" "${bin}/${name}.tar" "registry.k8s.io/${name}-amd64:${K8S_VERSION}"
  echo "${K8S_VERSION}" >"${bin}/${name}.docker_tag"
done
mkdir -p "${release}"
tar -C "${stage}" -czf "${release}/kubernetes-server-linux-amd64.tar.gz.partial" kubernetes
mv -f "${release}/kubernetes-server-linux-amd64.tar.gz.partial" "${release}/kubernetes-server-linux-amd64.tar.gz"
netfork::log "wrote ${release#"${NETFORK_ROOT}/"}/kubernetes-server-linux-amd64.tar.gz ($(du -h "${release}/kubernetes-server-linux-amd64.tar.gz" | cut -f1))"
