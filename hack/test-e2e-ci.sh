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

# test-e2e-ci.sh is what CI runs after `make test` for issue 11: the e2e suite against its
# own local-up, the feature-gate matrix, and the upgrade/downgrade scenarios that need
# only netfork and upstream at the pinned release (no VERSIONS). Each part runs even when
# an earlier one failed; the exit code is 1 when any did. Every part leaves nothing
# running. The upgrade scenarios, which spend most of their time waiting for a repair
# pass, run beside the suite and then the matrix, on their own local-up 100 ports up; their
# output is printed when they end. LOCAL_UP_PORT moves every local-up (default 6443);
# CI_GATES and CI_SCENARIOS narrow the matrix (COMBINATIONS) and the scenarios (SCENARIOS)
# to fit CI's time; CI_GATES_LABEL_FILTER replaces the matrix's label filter.
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
source "${NETFORK_ROOT}/hack/lib/gomod.sh"

failed=()
part() {
  local name="$1" start=$SECONDS
  shift
  netfork::log "== ${name}"
  if "$@"; then
    netfork::log "== ${name}: ok in $((SECONDS - start))s"
  else
    netfork::log "== ${name}: FAILED in $((SECONDS - start))s"
    failed+=("${name}")
  fi
}

port="${LOCAL_UP_PORT:-6443}"
upgrade_name="upgrade/downgrade ($(netfork::gomod::k8s_version go.mod))"
upgrade_log="$(mktemp)"
# job control: a process group of its own, to stop it all if this script is interrupted
set -m
(
  part "${upgrade_name}" env VERSIONS= SCENARIOS="${CI_SCENARIOS:-a,b,c}" LOCAL_UP_PORT=$((port + 100)) \
    hack/upgrade-downgrade.sh
  [[ ${#failed[@]} -eq 0 ]]
) >"${upgrade_log}" 2>&1 &
upgrade_pid=$!
set +m
# shellcheck disable=SC2317 # runs from the EXIT trap
stop_upgrade() {
  if kill -0 "${upgrade_pid}" 2>/dev/null; then
    kill -- "-${upgrade_pid}" 2>/dev/null || true
    wait "${upgrade_pid}" 2>/dev/null || true
  fi
  rm -f "${upgrade_log}"
}
trap stop_upgrade EXIT
trap 'exit 130' INT TERM

part "e2e suite" env LOCAL_UP_PORT="${port}" hack/test-e2e.sh
# The matrix runs the suite once per combination; the one spec that waits out the ServiceCIDR
# deletion grace (60 s, label deletion-grace) already ran in the suite above, so here it is
# skipped: four minutes less in CI. make test-e2e-gates runs it in every combination.
part "gate matrix" env LOCAL_UP_PORT="${port}" COMBINATIONS="${CI_GATES:-ttf tff ftf ftt tft ttt}" \
  GINKGO_LABEL_FILTER="${CI_GATES_LABEL_FILTER:-!netns && !datapath && !deletion-grace}" hack/test-e2e-gates.sh
upgrade_status=0
wait "${upgrade_pid}" || upgrade_status=$?
cat "${upgrade_log}"
((upgrade_status == 0)) || failed+=("${upgrade_name}")

if [[ ${#failed[@]} -gt 0 ]]; then
  netfork::log "failed: ${failed[*]}"
  exit 1
fi
