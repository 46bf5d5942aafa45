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

# upstream-apiserver.sh prints the path of upstream's kube-apiserver of one release,
# building it into _output/upstream/<version>/kube-apiserver when it is missing or older
# than its module files. The release netfork is pinned to (go.mod's k8s.io/kubernetes)
# builds from netfork's own module graph; any other builds from hack/upstream/<version>/,
# which hack/pin-upstream.sh generates (this script runs it for a served version that has
# none yet). Builds are cold (minutes, GBs) the first time, so they run under the build
# lock (netfork::with_build_lock, $NETFORK_BUILD_LOCK). The version is stamped in, so
# --version and /version report it. Usage: hack/upstream-apiserver.sh v1.36.3
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
source "${NETFORK_ROOT}/hack/lib/version.sh"

version="${1:-}"
if [[ $# -ne 1 || ! "${version}" =~ ^v1\.[0-9]+\.[0-9]+$ ]]; then
  netfork::log "usage: hack/upstream-apiserver.sh vMAJOR.MINOR.PATCH (e.g. v1.36.3), got '$*'"
  exit 1
fi
out="${NETFORK_OUTPUT}/upstream/${version}/kube-apiserver"
pinned="$(netfork::gomod::k8s_version go.mod)"
if [[ "${version}" == "${pinned}" ]]; then
  moddir="${NETFORK_ROOT}"
else
  moddir="${NETFORK_ROOT}/hack/upstream/${version}"
  if [[ ! -f "${moddir}/go.mod" ]]; then
    # pin-upstream.sh checks the proxy serves it first and writes nothing otherwise.
    hack/pin-upstream.sh "${version}" >&2
  fi
fi

if [[ ! -x "${out}" || "${moddir}/go.mod" -nt "${out}" || "${moddir}/go.sum" -nt "${out}" ]]; then
  NETFORK_GIT_VERSION="${version}" NETFORK_GIT_COMMIT="" NETFORK_GIT_TREE_STATE="" \
    NETFORK_GIT_MAJOR="" NETFORK_GIT_MINOR=""
  ldflags="$(netfork::version::ldflags)"
  mkdir -p "$(dirname "${out}")"
  netfork::log "building upstream kube-apiserver ${version} from ${moddir#"${NETFORK_ROOT}/"}"
  netfork::with_build_lock go -C "${moddir}" build -o "${out}.tmp" -ldflags "${ldflags}" \
    k8s.io/kubernetes/cmd/kube-apiserver >&2
  mv "${out}.tmp" "${out}"
fi
echo "${out}"
