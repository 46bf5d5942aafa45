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

# preflight.sh checks what the kind scripts need before they touch anything, each failure one
# line naming the problem. Sourced after common.sh.

# netfork::kind::require_docker fails unless the docker daemon answers.
netfork::kind::require_docker() {
  command -v docker >/dev/null || netfork::kind::die "docker is not installed"
  docker info >/dev/null 2>&1 || netfork::kind::die "docker is not running (docker info failed)"
}

# netfork::kind::require_disk fails when the docker root or the repo's filesystem has less
# than NETFORK_KIND_MIN_FREE_GB free.
netfork::kind::require_disk() {
  local dir free root
  root="$(docker info -f '{{.DockerRootDir}}' 2>/dev/null || echo /var/lib/docker)"
  for dir in "${NETFORK_ROOT}" "${root}"; do
    [[ -d "${dir}" ]] || continue
    free="$(df -Pk "${dir}" | awk 'NR == 2 { print int($4 / 1048576) }')"
    if ((free < NETFORK_KIND_MIN_FREE_GB)); then
      netfork::kind::die "only ${free} GB free on the filesystem of ${dir}; the kind path needs ${NETFORK_KIND_MIN_FREE_GB} GB"
    fi
  done
}

# netfork::kind::docker_can_run prints nothing and succeeds when docker can start a container
# at all (the first image given, running /bin/true); otherwise it prints the reason.
netfork::kind::docker_can_run() {
  local out
  if ! docker info >/dev/null 2>&1; then
    echo "docker is not running"
    return 1
  fi
  if ! out="$(docker run --rm --network none --entrypoint /bin/true "$1" 2>&1)"; then
    echo "docker cannot run containers: ${out//$'\n'/ }"
    return 1
  fi
}

# netfork::kind::validate_gates fails on a --feature-gates value netfork's kube-apiserver
# refuses (unknown gate, bad syntax), asking the binary itself as local-up does.
netfork::kind::validate_gates() {
  local gates="$1" bin="${NETFORK_KIND_BIN}/netfork/kube-apiserver" out
  [[ -n "${gates}" ]] || return 0
  [[ -x "${bin}" ]] || netfork::kind::die "${bin} does not exist to check --feature-gates: run make kind-image first"
  if ! out="$("${bin}" --feature-gates="${gates}" --version 2>&1)"; then
    netfork::kind::die "--feature-gates ${gates}: $(echo "${out}" | tail -n 1 | sed 's/.*err="\(.*\)"/\1/')"
  fi
}

# netfork::kind::detect_node_quirks sets what kind's nodes need on this docker host, each
# only where it is seen: NETFORK_KIND_RESTRICT_OOM (nothing in a node may lower
# oom_score_adj), NETFORK_KIND_CGROUP_V1 (kubelet must be told to accept cgroup v1) and
# NETFORK_KIND_SNAPSHOTTER (overlayfs when the node rootfs is on FUSE but /var is not).
# Needs NETFORK_KIND_RUNTIME and image from the caller.
# shellcheck disable=SC2034,SC2154 # sets the caller's NETFORK_KIND_* and reads its image, as above
netfork::kind::detect_node_quirks() {
  local args=(--rm --privileged --network none --entrypoint /bin/sh)
  [[ -n "${NETFORK_KIND_RUNTIME}" ]] && args+=(--runtime "${NETFORK_KIND_RUNTIME}")
  NETFORK_KIND_RESTRICT_OOM=false
  if ! docker run "${args[@]}" "${image}" -c 'echo -999 >/proc/self/oom_score_adj' >/dev/null 2>&1; then
    NETFORK_KIND_RESTRICT_OOM=true
    netfork::log "containers here cannot lower oom_score_adj; nodes' containerd gets restrict_oom_score_adj = true"
  fi
  NETFORK_KIND_CGROUP_V1=false
  if [[ "$(docker info -f '{{.CgroupVersion}}')" == 1 ]]; then
    NETFORK_KIND_CGROUP_V1=true
    netfork::log "docker runs cgroup v1; kubelet gets failCgroupV1: false"
  fi
  NETFORK_KIND_SNAPSHOTTER=""
  if [[ "$(docker info -f '{{.Driver}}')" == fuse-overlayfs ]] &&
    [[ "$(stat -f -c %T "$(docker info -f '{{.DockerRootDir}}')" 2>/dev/null)" =~ ^(ext2/ext3|xfs)$ ]]; then
    NETFORK_KIND_SNAPSHOTTER=overlayfs
    netfork::log "docker stores containers on fuse-overlayfs; nodes' containerd uses overlayfs on their /var volume"
  fi
}
