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

# localup.sh starts and stops a local-up for the test harnesses (test-e2e.sh,
# test-e2e-gates.sh, upgrade-downgrade.sh); it is sourced after init.sh. One local-up per
# shell: NETFORK_LOCALUP_PID and NETFORK_LOCALUP_DATA_DIR say which.

NETFORK_LOCALUP_PID=""
NETFORK_LOCALUP_DATA_DIR=""

# netfork::localup::start DATA_DIR [local-up flags] [-- kube-apiserver flags] starts
# _output/bin/local-up (READY_TIMEOUT, default 180s, bounds the wait) and returns once it
# printed its ready line; on failure it prints local-up's error line and returns 1 with
# nothing left running. Its stderr goes to DATA_DIR.log.
netfork::localup::start() {
  local data_dir="$1" out deadline
  shift
  out="${data_dir}.out"
  mkdir -p "$(dirname "${data_dir}")"
  : >"${out}"
  local cmd=("${NETFORK_OUTPUT}/bin/local-up" --data-dir "${data_dir}" "$@")
  echo "+ ${cmd[*]} &" >&2
  # Not through netfork::run: $! must be local-up's own PID, for SIGTERM to reach it.
  "${cmd[@]}" >"${out}" 2>"${data_dir}.log" &
  NETFORK_LOCALUP_PID=$!
  NETFORK_LOCALUP_DATA_DIR="${data_dir}"
  deadline=$((SECONDS + ${READY_TIMEOUT:-180}))
  until grep -q '^local-up: ready in ' "${out}"; do
    if ! kill -0 "${NETFORK_LOCALUP_PID}" 2>/dev/null; then
      wait "${NETFORK_LOCALUP_PID}" || true
      NETFORK_LOCALUP_PID=""
      netfork::log "local-up failed: $(grep 'local-up: error' "${data_dir}.log" | tail -1)"
      return 1
    fi
    if ((SECONDS > deadline)); then
      netfork::log "local-up not ready after ${READY_TIMEOUT:-180}s (log: ${data_dir}.log)"
      netfork::localup::stop
      return 1
    fi
    sleep 0.5
  done
  netfork::log "$(cat "${out}")"
}

# netfork::localup::stop sends the running local-up SIGTERM and waits for it, which stops
# every apiserver and etcd it started.
netfork::localup::stop() {
  if [[ -n "${NETFORK_LOCALUP_PID}" ]]; then
    kill -TERM "${NETFORK_LOCALUP_PID}" 2>/dev/null || true
    wait "${NETFORK_LOCALUP_PID}" 2>/dev/null || true
    NETFORK_LOCALUP_PID=""
  fi
}

# netfork::localup::ctl VERB [args] runs a local-up subcommand against the running one.
netfork::localup::ctl() {
  local verb="$1"
  shift
  netfork::run "${NETFORK_OUTPUT}/bin/local-up" "${verb}" --data-dir "${NETFORK_LOCALUP_DATA_DIR}" "$@"
}

# netfork::localup::etcd_url prints the client URL of the running local-up's etcd, as
# local-up.json records it.
netfork::localup::etcd_url() {
  local port
  port="$(sed -n 's/.*"clientPort": *\([0-9]*\).*/\1/p' "${NETFORK_LOCALUP_DATA_DIR}/local-up.json" | head -1)"
  echo "http://127.0.0.1:${port}"
}
