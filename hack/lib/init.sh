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

# init.sh is sourced first by every hack/ script so that each runs in strict mode from the
# repo root and prints the commands it runs the same way.

set -euo pipefail

NETFORK_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)"
export NETFORK_ROOT
cd "${NETFORK_ROOT}"

# NETFORK_OUTPUT is where builds, tool caches and local clusters go; it is gitignored.
NETFORK_OUTPUT="${NETFORK_ROOT}/_output"
export NETFORK_OUTPUT

# netfork::log prints one line prefixed with the calling script's name, on stderr so that it
# never mixes into output another tool parses.
netfork::log() {
  echo "$(basename "$0"): $*" >&2
}

# netfork::run prints a command, shell-quoted, before running it, so a log shows exactly
# what to paste to reproduce a step.
netfork::run() {
  local arg line="+"
  for arg in "$@"; do
    if [[ "${arg}" =~ ^[A-Za-z0-9_./:=@%+,-]+$ ]]; then
      line+=" ${arg}"
    else
      arg="${arg//\\/\\\\}"
      arg="${arg//\"/\\\"}"
      arg="${arg//\$/\\\$}"
      arg="${arg//\`/\\\`}"
      line+=" \"${arg}\""
    fi
  done
  echo "${line}" >&2
  "$@"
}

# netfork::with_build_lock runs a command under flock on the build lock, so that two cold,
# CPU-heavy builds (the kind path's, upstream's kube-apiserver) never run at once.
# NETFORK_BUILD_LOCK names the lock file (default _output/.buildlock); point several
# checkouts at one file to make them take turns too.
netfork::with_build_lock() {
  local lock="${NETFORK_BUILD_LOCK:-${NETFORK_OUTPUT}/.buildlock}"
  mkdir -p "$(dirname "${lock}")"
  netfork::run flock "${lock}" "$@"
}
