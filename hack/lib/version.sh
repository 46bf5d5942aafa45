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

# version.sh computes the version stamped into netfork binaries; it is sourced after init.sh.
# The version is upstream's (go.mod's k8s.io/kubernetes requirement) plus "+netfork", so
# clients and version skew checks see the Kubernetes release netfork is built on, and the
# build metadata says it is netfork's build of it.

source "${NETFORK_ROOT}/hack/lib/gomod.sh"

# netfork::version::get_vars sets NETFORK_GIT_{VERSION,MAJOR,MINOR,COMMIT,TREE_STATE} and
# NETFORK_BUILD_DATE. Each may be preset in the environment, e.g. to build from a tarball
# without .git; SOURCE_DATE_EPOCH fixes the build date for reproducible builds.
netfork::version::get_vars() {
  if [[ -z "${NETFORK_GIT_VERSION:-}" ]]; then
    NETFORK_GIT_VERSION="$(netfork::gomod::k8s_version "${NETFORK_ROOT}/go.mod")+netfork"
  fi
  if [[ ! "${NETFORK_GIT_VERSION}" =~ ^v([0-9]+)\.([0-9]+)(\.[0-9]+)?(-[^+]*)?(\+.*)?$ ]]; then
    echo "version ${NETFORK_GIT_VERSION} is not a semantic version like v1.37.1+netfork" >&2
    return 1
  fi
  # As upstream's hack/lib/version.sh: a pre-release gets "+" after its minor.
  NETFORK_GIT_MAJOR="${NETFORK_GIT_MAJOR:-${BASH_REMATCH[1]}}"
  NETFORK_GIT_MINOR="${NETFORK_GIT_MINOR:-${BASH_REMATCH[2]}${BASH_REMATCH[4]:+"+"}}"

  if git -C "${NETFORK_ROOT}" rev-parse --git-dir >/dev/null 2>&1; then
    NETFORK_GIT_COMMIT="${NETFORK_GIT_COMMIT:-$(git -C "${NETFORK_ROOT}" rev-parse HEAD)}"
    if [[ -z "${NETFORK_GIT_TREE_STATE:-}" ]]; then
      # As upstream: untracked files count, ignored ones do not.
      if [[ -z "$(git -C "${NETFORK_ROOT}" status --porcelain 2>/dev/null)" ]]; then
        NETFORK_GIT_TREE_STATE=clean
      else
        NETFORK_GIT_TREE_STATE=dirty
      fi
    fi
  fi
  NETFORK_GIT_COMMIT="${NETFORK_GIT_COMMIT:-}"
  NETFORK_GIT_TREE_STATE="${NETFORK_GIT_TREE_STATE:-}"

  if [[ -z "${NETFORK_BUILD_DATE:-}" && -n "${SOURCE_DATE_EPOCH:-}" ]]; then
    NETFORK_BUILD_DATE="$(date -u -d "@${SOURCE_DATE_EPOCH}" +'%Y-%m-%dT%H:%M:%SZ')"
  fi
  NETFORK_BUILD_DATE="${NETFORK_BUILD_DATE:-$(date -u +'%Y-%m-%dT%H:%M:%SZ')}"
}

# netfork::version::ldflags prints the -ldflags value that stamps the version into both
# packages that report it: component-base (--version, /version) and client-go (User-Agent).
netfork::version::ldflags() {
  netfork::version::get_vars
  local pkg flags=()
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    flags+=(
      "-X '${pkg}.gitVersion=${NETFORK_GIT_VERSION}'"
      "-X '${pkg}.gitMajor=${NETFORK_GIT_MAJOR}'"
      "-X '${pkg}.gitMinor=${NETFORK_GIT_MINOR}'"
      "-X '${pkg}.gitCommit=${NETFORK_GIT_COMMIT}'"
      "-X '${pkg}.gitTreeState=${NETFORK_GIT_TREE_STATE}'"
      "-X '${pkg}.buildDate=${NETFORK_BUILD_DATE}'"
    )
  done
  echo "${flags[*]}"
}
