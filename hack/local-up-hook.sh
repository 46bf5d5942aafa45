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

# local-up-hook.sh is the e2e suite's disruptive-spec hook ($NETFORK_E2E_HOOK, see
# test/e2e/doc.go) for a running local-up, over local-up's control socket:
#   hack/local-up-hook.sh stop INDEX    SIGTERM apiserver INDEX; returns once it has exited
#   hack/local-up-hook.sh start INDEX   start it again; returns once its /readyz is ok
#   hack/local-up-hook.sh count         print the number of apiservers
#   LOCAL_UP_DATA_DIR   the local-up's --data-dir (default _output/local)
#   LOCAL_UP            the local-up binary (default _output/bin/local-up)
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

data_dir="${LOCAL_UP_DATA_DIR:-${NETFORK_OUTPUT}/local}"
local_up="${LOCAL_UP:-${NETFORK_OUTPUT}/bin/local-up}"
if [[ ! -x "${local_up}" ]]; then
  netfork::log "${local_up} is missing: run make build"
  exit 1
fi

case "${1:-} $#" in
  "stop 2" | "start 2")
    if [[ ! "$2" =~ ^[0-9]+$ ]]; then
      netfork::log "$1: apiserver index '$2' is not a number"
      exit 2
    fi
    # local-up prints one line saying what it did; keep stdout for count.
    exec "${local_up}" "$1" --data-dir "${data_dir}" "$2" >&2
    ;;
  "count 1")
    exec "${local_up}" status --data-dir "${data_dir}" --count
    ;;
  *)
    netfork::log "usage: $(basename "$0") stop INDEX | start INDEX | count (got: $*)"
    exit 2
    ;;
esac
