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

# upgrade-downgrade.sh runs the upgrade/downgrade scenarios of test/upgrade
# (a: upstream → netfork → back → netfork; b: KEP-1880 migration from the legacy bitmaps
# and rollback, with one deliberately unsafe step that must raise
# BitmapOnlyAPIServerDetected; c: dual-stack kubernetes Service with an upstream apiserver
# joining and leaving, then a downgrade to upstream) on a 3-apiserver local-up under load,
# with real upstream binaries from hack/upstream-apiserver.sh. It prints a table per step
# and a summary, and exits 1 when any step fails.
#   VERSIONS       upstream releases besides the pinned one (go.mod's k8s.io/kubernetes),
#                  comma-separated, e.g. VERSIONS=v1.37.1,v1.36.3,v1.35.4,v1.33.13: scenario a
#                  runs once per release (v1.33.x aside), b once more with v1.33.x as the
#                  bitmap-only apiserver; hack/upstream/ holds the modules they build from
#   SCENARIOS      which scenarios (default a,b,c)
#   LOCAL_UP_PORT  local-up's --port (default 6443)
#   UPGRADE_ARGS   more flags for the Go harness (e.g. --repair-interval=1m)
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
source "${NETFORK_ROOT}/hack/lib/gomod.sh"

pinned="$(netfork::gomod::k8s_version go.mod)"
IFS=', ' read -r -a versions <<<"${VERSIONS:-}"
# One line and exit 1 for a release that is malformed or not served, before any build.
for v in "${versions[@]}"; do
  if [[ ! "${v}" =~ ^v1\.[0-9]+\.[0-9]+$ ]]; then
    netfork::log "VERSIONS: '${v}' is not a release like v1.36.3"
    exit 1
  fi
  if [[ ! -f "hack/upstream/${v}/go.mod" && "${v}" != "${pinned}" ]] && ! netfork::gomod::served "${v}"; then
    exit 1
  fi
done
binaries=()
for v in "${pinned}" "${versions[@]}"; do
  [[ -z "${v}" ]] && continue
  binaries+=(--binary "${v}=$(hack/upstream-apiserver.sh "${v}")")
done
netfork::run hack/build.sh
netfork::run go build -o "${NETFORK_OUTPUT}/bin/upgrade-downgrade" ./test/upgrade
read -r -a extra <<<"${UPGRADE_ARGS:-}"
# exec, so Ctrl-C and SIGTERM reach the harness, which stops the local-up it started.
exec "${NETFORK_OUTPUT}/bin/upgrade-downgrade" --local-up "${NETFORK_OUTPUT}/bin/local-up" \
  --binary "netfork=${NETFORK_OUTPUT}/bin/kube-apiserver" "${binaries[@]}" --pinned "${pinned}" \
  --port "${LOCAL_UP_PORT:-6443}" --data-dir "${NETFORK_OUTPUT}/upgrade" \
  --scenarios "${SCENARIOS:-a,b,c}" "${extra[@]}"
