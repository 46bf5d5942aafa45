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

# images.sh turns built binaries into the container images a kind node pre-loads, each saved
# as a docker archive tagged with the names kubeadm and kind look for. The docker images
# themselves are named netfork/kind-img-<name> (the cache); the registry names exist only
# inside the archives and the node's containerd. Sourced after common.sh and base.sh.

# NETFORK_KIND_IMAGES is where the image archives go, one <name>.tar each.
NETFORK_KIND_IMAGES="${NETFORK_KIND_OUTPUT}/images"

# netfork::kind::component_image builds one image and writes its archive, re-saving only when
# the image changed.
#   $1 name  $2 from: scratch | debian | debian-e2e | a local docker image (e.g. another
#   component image, netfork/kind-img-<name>:latest)  $3 entrypoint (JSON array, "" for none)
#   $4 tags (space-separated registry names)  $5.. files as SRC:DEST (DEST absolute)
# NETFORK_KIND_IMAGE_RUN (a shell command run in the image), NETFORK_KIND_IMAGE_CMD (CMD as
# JSON) and NETFORK_KIND_IMAGE_USER (USER), when set, are added to the image.
netfork::kind::component_image() {
  local name="$1" from="$2" entrypoint="$3" tags="$4" ctx spec base id archive
  shift 4
  ctx="${NETFORK_KIND_OUTPUT}/ctx/img-${name}"
  rm -rf "${ctx}"
  mkdir -p "${ctx}/rootfs/tmp" "${ctx}/rootfs/etc"
  chmod 1777 "${ctx}/rootfs/tmp"
  base="${from}"
  if [[ "${from}" == debian ]]; then
    base="$(netfork::kind::debian_image)"
  elif [[ "${from}" == debian-e2e ]]; then
    base="$(netfork::kind::debian_image DEBIAN_E2E_PACKAGES)"
  elif [[ "${from}" == scratch ]]; then
    printf 'root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n' >"${ctx}/rootfs/etc/passwd"
    printf 'root:x:0:\nnogroup:x:65534:\n' >"${ctx}/rootfs/etc/group"
    printf 'hosts: files dns\n' >"${ctx}/rootfs/etc/nsswitch.conf"
  fi
  for spec in "$@"; do
    mkdir -p "${ctx}/rootfs$(dirname "${spec#*:}")"
    cp -L "${spec%%:*}" "${ctx}/rootfs${spec#*:}"
  done
  {
    echo "FROM ${base}"
    echo "COPY rootfs/ /"
    echo "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
    [[ -n "${NETFORK_KIND_IMAGE_RUN:-}" ]] && echo "RUN ${NETFORK_KIND_IMAGE_RUN}"
    [[ -n "${entrypoint}" ]] && echo "ENTRYPOINT ${entrypoint}"
    [[ -n "${NETFORK_KIND_IMAGE_CMD:-}" ]] && echo "CMD ${NETFORK_KIND_IMAGE_CMD}"
    [[ -n "${NETFORK_KIND_IMAGE_USER:-}" ]] && echo "USER ${NETFORK_KIND_IMAGE_USER}"
  } >"${ctx}/Dockerfile"
  find "${ctx}" -exec touch -h -d @0 {} +
  docker build -q -t "netfork/kind-img-${name}:latest" "${ctx}" >/dev/null
  id="$(docker image inspect -f '{{.Id}}' "netfork/kind-img-${name}:latest")"
  archive="${NETFORK_KIND_IMAGES}/${name}.tar"
  if [[ -f "${archive}" && "$(cat "${archive}.id" 2>/dev/null)" == "${id}:${tags}" ]]; then
    return 0
  fi
  mkdir -p "${NETFORK_KIND_IMAGES}"
  local tag_list
  read -r -a tag_list <<<"${tags}"
  netfork::kind::save_as "netfork/kind-img-${name}:latest" "${archive}" "${tag_list[@]}"
  echo "${id}:${tags}" >"${archive}.id"
  netfork::log "image ${name}: ${tags}"
}

# netfork::kind::save_as writes a docker archive of one image whose manifest and repositories
# name it only by the given tags, written under a temporary name and renamed, so an
# interrupted save never leaves an archive that looks complete.
#   $1 image  $2 archive path  $3.. tags
netfork::kind::save_as() {
  local image="$1" archive="$2" dir tags_json repos_json
  shift 2
  dir="$(mktemp -d "${NETFORK_KIND_OUTPUT}/save.XXXXXX")"
  docker save "${image}" | tar -C "${dir}" -x
  tags_json="$(printf '%s\n' "$@" | jq -R . | jq -sc .)"
  jq -c --argjson tags "${tags_json}" '.[0].RepoTags = $tags | [.[0]]' "${dir}/manifest.json" >"${dir}/manifest.json.new"
  mv "${dir}/manifest.json.new" "${dir}/manifest.json"
  # repositories maps each name to its top layer, as docker save writes it (kind reads it).
  local top
  top="$(jq -r '.[0].Layers[-1] | split("/")[0]' "${dir}/manifest.json")"
  repos_json="$(printf '%s\n' "$@" | jq -R --arg top "${top}" \
    'capture("^(?<repo>.*):(?<tag>[^:/]+)$") | {(.repo): {(.tag): $top}}' | jq -sc 'reduce .[] as $x ({}; . * $x)')"
  echo "${repos_json}" >"${dir}/repositories"
  local layers=() f
  for f in "${dir}"/*; do
    f="${f##*/}"
    [[ "${f}" == manifest.json || "${f}" == repositories ]] || layers+=("${f}")
  done
  (cd "${dir}" && tar -cf "${archive}.partial" manifest.json repositories "${layers[@]}")
  mv -f "${archive}.partial" "${archive}"
  rm -rf "${dir}"
}

# NETFORK_E2E_CLIENT_IMAGE is test/e2e's default dpClientImage.
NETFORK_E2E_CLIENT_IMAGE="docker.io/netfork/kind-e2e-client:1"

# NETFORK_KIND_PREP_ARCHIVES lists the archives of every image but netfork's apiserver.
NETFORK_KIND_PREP_ARCHIVES=()

# netfork::kind::image_for prints the image kubeadm names for one component (e.g. etcd).
netfork::kind::image_for() {
  netfork::kind::kubeadm_images | grep -E "/$1:" | head -n 1
}

# netfork::kind::all_component_images writes every image archive the node pre-loads: kubeadm's
# list (netfork's kube-apiserver among them), kind's CNI and storage images, the sandbox
# image kind's containerd config names, and upstream's kube-apiserver under a tag of its own.
netfork::kind::all_component_images() {
  local b="${NETFORK_KIND_BIN}" kind_dir sandbox coredns_tag
  kind_dir="$(netfork::kind::kind_dir)"
  sandbox="$(sed -n 's/^[[:space:]]*sandbox_image = "\(.*\)"/\1/p' "${kind_dir}/images/base/files/etc/containerd/config.toml")"
  coredns_tag="$(netfork::kind::image_for coredns)"
  if [[ "${coredns_tag##*:}" != "$(netfork::gomod::require "${NETFORK_ROOT}/kind/coredns/go.mod" github.com/coredns/coredns)" ]]; then
    netfork::kind::die "kubeadm deploys ${coredns_tag} but kind/coredns/go.mod pins another CoreDNS"
  fi
  netfork::version::get_vars
  netfork::kind::component_image kube-apiserver debian '["/usr/local/bin/kube-apiserver"]' \
    "$(netfork::kind::image_for kube-apiserver) $(netfork::kind::netfork_apiserver_image)" \
    "${b}/netfork/kube-apiserver:/usr/local/bin/kube-apiserver"
  netfork::kind::component_image upstream-kube-apiserver debian '["/usr/local/bin/kube-apiserver"]' \
    "$(netfork::kind::upstream_apiserver_image "${K8S_VERSION}")" "${b}/upstream/kube-apiserver:/usr/local/bin/kube-apiserver"
  netfork::kind::component_image kube-controller-manager debian '["/usr/local/bin/kube-controller-manager"]' \
    "$(netfork::kind::image_for kube-controller-manager)" "${b}/node/kube-controller-manager:/usr/local/bin/kube-controller-manager"
  netfork::kind::component_image kube-scheduler debian '["/usr/local/bin/kube-scheduler"]' \
    "$(netfork::kind::image_for kube-scheduler)" "${b}/node/kube-scheduler:/usr/local/bin/kube-scheduler"
  netfork::kind::component_image kube-proxy debian '["/usr/local/bin/kube-proxy"]' \
    "$(netfork::kind::image_for kube-proxy)" "${b}/node/kube-proxy:/usr/local/bin/kube-proxy"
  netfork::kind::component_image etcd debian '["/usr/local/bin/etcd"]' \
    "$(netfork::kind::image_for etcd)" "${b}/node/etcd:/usr/local/bin/etcd"
  netfork::kind::component_image coredns scratch '["/coredns"]' "${coredns_tag}" "${b}/addons/coredns:/coredns"
  netfork::kind::component_image pause scratch '["/pause"]' \
    "$(netfork::kind::image_for pause) ${sandbox}" "${b}/addons/pause:/pause"
  netfork::kind::component_image kindnetd debian '["/bin/kindnetd"]' \
    "$(netfork::kind::kind_const kindnetdImage)" "${b}/node/kindnetd:/bin/kindnetd"
  netfork::kind::component_image local-path-provisioner scratch '' \
    "$(netfork::kind::kind_const storageProvisionerImage)" \
    "${b}/addons/local-path-provisioner:/usr/local/bin/local-path-provisioner"
  netfork::kind::component_image local-path-helper debian '' "$(netfork::kind::kind_const storageHelperImage)"
  # The data-path specs' client and server (sh, curl, socat), test/e2e's dpClientImage.
  netfork::kind::component_image e2e-client debian '' "${NETFORK_E2E_CLIENT_IMAGE}"
  NETFORK_KIND_PREP_ARCHIVES=()
  local name
  for name in upstream-kube-apiserver kube-controller-manager kube-scheduler kube-proxy etcd coredns \
    pause kindnetd local-path-provisioner local-path-helper e2e-client; do
    NETFORK_KIND_PREP_ARCHIVES+=("${NETFORK_KIND_IMAGES}/${name}.tar")
  done
}

# netfork::kind::netfork_apiserver_image names netfork's apiserver image inside the node, next
# to kubeadm's name for it, so the upgrade script can switch back to it.
netfork::kind::netfork_apiserver_image() {
  netfork::version::get_vars
  echo "docker.io/netfork/kube-apiserver:${NETFORK_GIT_VERSION//+/_}"
}

# netfork::kind::upstream_apiserver_image names upstream's apiserver image of release $1
# (default K8S_VERSION, the one every node carries) inside the node.
netfork::kind::upstream_apiserver_image() {
  echo "docker.io/netfork/upstream-kube-apiserver:${1:-${K8S_VERSION}}"
}

# netfork::kind::load_archive imports image archive $2 into node $1's containerd, pinned as
# the images kind pre-loads are.
netfork::kind::load_archive() {
  docker exec -i "$1" ctr -n k8s.io images import --label=io.cri-containerd.pinned=pinned \
    --all-platforms --digests - <"$2" >/dev/null
}
