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

# base.sh builds netfork's equivalent of kind's kindest/base with no registry: a Debian rootfs
# from debootstrap, docker-imported, then kind's base files and the container runtime on top
# (images/base/Dockerfile). Sourced after common.sh and build.sh.

# DEBIAN_PACKAGES is kind's base package list (images/base/Dockerfile) without the network
# storage clients (nfs-common, open-iscsi), which only storage e2e tests use, plus socat and
# dbus, which kubelet port-forwarding and systemd want.
DEBIAN_PACKAGES=(
  systemd dbus conntrack iptables nftables iproute2 ethtool util-linux mount kmod
  libseccomp2 pigz fuse-overlayfs e2fsprogs bash ca-certificates curl jq procps socat
)

# DEBIAN_E2E_PACKAGES is what upstream's agnhost image adds to Alpine (bind-tools, i.e.
# trixie's bind9-dnsutils, since its dnsutils is gone; curl,
# netcat-openbsd, iproute2, iperf, bash, util-linux, socat) plus busybox, whose applets
# (wget, nslookup, ...) the e2e framework runs inside agnhost: Debian's dynamically linked
# busybox, since busybox-static's wget crashes on -T.
# shellcheck disable=SC2034 # named by images.sh as netfork::kind::debian_image's package list
DEBIAN_E2E_PACKAGES=(
  "${DEBIAN_PACKAGES[@]}" bind9-dnsutils netcat-openbsd iperf busybox
)

# netfork::kind::debian_image builds (once per suite and package list) the imported rootfs
# and prints its tag; $1 names the package list (default DEBIAN_PACKAGES).
netfork::kind::debian_image() {
  local -n packages="${1:-DEBIAN_PACKAGES}"
  local hash tag rootfs
  hash="$(printf '%s\n' "${DEBIAN_SUITE}" "${packages[@]}" | sha256sum | cut -c1-12)"
  tag="netfork/kind-debian:${DEBIAN_SUITE}-${hash}"
  if docker image inspect "${tag}" >/dev/null 2>&1; then
    netfork::log "Debian rootfs ${tag} exists"
    echo "${tag}"
    return 0
  fi
  command -v debootstrap >/dev/null || netfork::kind::die "debootstrap is not installed (hack/install-deps.sh kind installs it)"
  rootfs="$(mktemp -d "${NETFORK_KIND_OUTPUT}/rootfs.XXXXXX")"
  # shellcheck disable=SC2064 # expand now: the path is fixed
  trap "rm -rf '${rootfs}'" RETURN
  local IFS=,
  netfork::kind::heavy debootstrap --variant=minbase --include="${packages[*]}" \
    "${DEBIAN_SUITE}" "${rootfs}" "${DEBIAN_MIRROR}" >&2
  unset IFS
  # As kind's clean-install: no package lists, caches, logs or docs in the image.
  chroot "${rootfs}" apt-get clean
  rm -rf "${rootfs}"/var/lib/apt/lists/* "${rootfs}"/var/cache/debconf/*-old "${rootfs}"/var/log/* \
    "${rootfs}"/tmp/* "${rootfs}"/var/tmp/* "${rootfs}"/usr/share/doc/* "${rootfs}"/usr/share/man/*
  netfork::log "importing the rootfs as ${tag}"
  tar -C "${rootfs}" --numeric-owner -c . | docker import - "${tag}" >/dev/null
  echo "${tag}"
}

# netfork::kind::base_image builds netfork/kind-base from the rootfs, kind's base files and the
# runtime binaries and prints its tag; docker's build cache makes an unchanged rebuild instant.
netfork::kind::base_image() {
  local debian ctx kind_dir tag hash
  debian="$(netfork::kind::debian_image DEBIAN_PACKAGES)"
  netfork::kind::build_runtime >&2
  kind_dir="$(netfork::kind::kind_dir)"
  ctx="${NETFORK_KIND_OUTPUT}/ctx/base"
  rm -rf "${ctx}"
  mkdir -p "${ctx}/rootfs/usr/local/bin" "${ctx}/rootfs/usr/local/sbin" "${ctx}/rootfs/opt/cni/bin"
  cp -r "${kind_dir}/images/base/files/." "${ctx}/rootfs/"
  chmod -R u+w "${ctx}/rootfs"
  # Modes as kind's COPY --chmod: scripts 0755, everything else 0644, directories 0755.
  find "${ctx}/rootfs" -type d -exec chmod 0755 {} +
  find "${ctx}/rootfs" -type f -exec chmod 0644 {} +
  chmod 0755 "${ctx}"/rootfs/usr/local/bin/* "${ctx}"/rootfs/kind/bin/*
  install -m 0755 "${NETFORK_KIND_BIN}"/runtime/bin/* "${ctx}/rootfs/usr/local/bin/"
  install -m 0755 "${NETFORK_KIND_BIN}/runtime/sbin/runc" "${ctx}/rootfs/usr/local/sbin/runc"
  install -m 0755 "${NETFORK_KIND_BIN}"/runtime/cni/* "${ctx}/rootfs/opt/cni/bin/"
  cp "${NETFORK_ROOT}/kind/images/base/Dockerfile" "${ctx}/Dockerfile"
  # Fixed times so that docker's build cache sees unchanged files as unchanged.
  find "${ctx}" -exec touch -h -d @0 {} +
  tag="netfork/kind-base:${KIND_VERSION}"
  # Skip docker (and the build lock) when the image was built from exactly this context.
  hash="$( (cd "${ctx}" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum; echo "${debian}") | sha256sum | cut -c1-16)"
  if [[ "$(docker image inspect -f '{{index .Config.Labels "netfork.context"}}' "${tag}" 2>/dev/null)" != "${hash}" ]]; then
    netfork::kind::heavy docker build -q --label "netfork.context=${hash}" --build-arg "DEBIAN_IMAGE=${debian}" -t "${tag}" "${ctx}" >&2
  fi
  echo "${tag}"
}
