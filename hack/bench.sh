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

# bench.sh is `make bench`: the short Service-allocation benchmark (N=1000 and 10000 Services,
# no extra ServiceCIDRs, one round, every contender), under 10 minutes on 2 cores when the
# allocators are fast. Arguments go to bench-services.sh: make bench ARGS=--full runs the
# full matrix (N up to 100000, up to 1000 extra ServiceCIDRs, 3 rounds) in under an hour;
# docs/benchmark.md names the two runs it leaves to invocations of their own.
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

exec "${NETFORK_ROOT}/hack/bench-services.sh" "$@"
