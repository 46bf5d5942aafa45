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

# suite.sh sources the kind libraries of a script that builds the images, makes a cluster
# and runs tests on it (conformance.sh, e2e-upstream.sh, upgrade.sh). It is sourced after
# hack/lib/init.sh, so NETFORK_ROOT is set.
source "${NETFORK_ROOT}/kind/lib/common.sh"
source "${NETFORK_ROOT}/kind/lib/preflight.sh"
source "${NETFORK_ROOT}/kind/lib/build.sh"
source "${NETFORK_ROOT}/kind/lib/base.sh"
source "${NETFORK_ROOT}/kind/lib/images.sh"
source "${NETFORK_ROOT}/kind/lib/network.sh"
source "${NETFORK_ROOT}/kind/lib/cluster.sh"
source "${NETFORK_ROOT}/kind/lib/logs.sh"
source "${NETFORK_ROOT}/kind/lib/e2e.sh"
