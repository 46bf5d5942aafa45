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

# bump-k8s.sh pins k8s.io/kubernetes and every staging module it replaces to ./staging
# at one version, in go.mod and in kind/node/go.mod, generating the replace block
# from upstream's own go.mod so that no pin is ever typed by hand. Usage: hack/bump-k8s.sh v1.37.1
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
source "${NETFORK_ROOT}/hack/lib/gomod.sh"

version="${1:-}"
if [[ ! "${version}" =~ ^v1\.[0-9]+\.[0-9]+$ ]]; then
  netfork::log "usage: hack/bump-k8s.sh vMAJOR.MINOR.PATCH (e.g. v1.37.1), got '${version}'"
  exit 1
fi
block="$(netfork::gomod::staging_pins "${version}" hack/bump-k8s.sh)"

# In go.mod and in the kind node module's (whose components must be the same release,
# as verify-kind-modules.sh checks): drop the old generated block, write the new one.
tmp="$(mktemp)"
trap 'rm -f "${tmp}"' EXIT
for mod in go.mod kind/node/go.mod; do
  awk '/^\/\/ BEGIN staging pins/{skip=1} !skip{print} /^\/\/ END staging pins/{skip=0}' "${mod}" >"${tmp}"
  echo "${block}" >>"${tmp}"
  cat "${tmp}" >"${mod}"
  netfork::run go -C "$(dirname "${mod}")" mod edit -require="k8s.io/kubernetes@${version}"
  netfork::run go -C "$(dirname "${mod}")" mod tidy
done
netfork::log "pinned k8s.io/kubernetes ${version} and $(grep -c ' => ' <<<"${block}") staging modules at $(netfork::gomod::staging_version "${version}")"
# The only hand work a bump leaves: the netfork code that stands beside upstream files that changed.
if ! hack/verify-upstream-shims.sh; then
  netfork::log "port the shims listed above, update their sums in hack/upstream-shims.txt, then make verify test"
  exit 1
fi
