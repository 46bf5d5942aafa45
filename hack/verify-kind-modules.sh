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

# verify-kind-modules.sh checks the Go modules of the kind path: kind/node pins the same
# k8s.io/kubernetes and staging versions as the main go.mod (its components must be the
# release netfork's apiserver is built on), and kind/node and kind/coredns are tidy.
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
source "${NETFORK_ROOT}/hack/lib/gomod.sh"

failed=0
main="$(netfork::gomod::k8s_version go.mod)"
node="$(netfork::gomod::k8s_version kind/node/go.mod)"
if [[ "${main}" != "${node}" ]]; then
  echo "kind/node/go.mod: k8s.io/kubernetes ${node}, but go.mod has ${main}; copy the pin and the staging block"
  failed=1
fi
if ! diff <(sed -n '/^\/\/ BEGIN staging pins/,/^\/\/ END staging pins/p' go.mod) \
  <(sed -n '/^\/\/ BEGIN staging pins/,/^\/\/ END staging pins/p' kind/node/go.mod) >/dev/null; then
  echo "kind/node/go.mod: its staging pins block differs from go.mod's; copy go.mod's"
  failed=1
fi
for dir in kind/node kind/coredns; do
  if ! netfork::run go -C "${dir}" mod tidy -diff >/dev/null; then
    echo "${dir}/go.mod: not tidy; fix with: go -C ${dir} mod tidy"
    failed=1
  fi
done
[[ ${failed} -eq 0 ]] || exit 1
netfork::log "OK: the kind modules pin k8s.io/kubernetes ${main} like go.mod and are tidy"
