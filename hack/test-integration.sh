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

# test-integration.sh runs test/integration: in-process apiservers on embedded etcd. -p 1
# runs one package at a time, since each package starts its own etcd and apiservers and two
# at once overload a 2-core machine into timeouts. -race, as in the unit tests: the
# allocators, repair loops, controllers and reconcilers run concurrently in every apiserver
# here. VERBOSE=1 adds -v; WHAT narrows the packages; TIMEOUT overrides 45m; GOTESTFLAGS
# adds flags (GOTESTFLAGS=-race=false for a quicker run without the race detector).
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

if [[ ! -d test/integration ]]; then
  netfork::log "test/integration does not exist yet; nothing to test"
  exit 0
fi

read -r -a what <<<"${WHAT:-./test/integration/...}"
flags=(-race -p 1 -timeout "${TIMEOUT:-45m}")
if [[ "${VERBOSE:-0}" == 1 ]]; then
  flags+=(-v)
fi
read -r -a extra <<<"${GOTESTFLAGS:-}"
netfork::run go test "${flags[@]}" "${extra[@]}" "${what[@]}"
