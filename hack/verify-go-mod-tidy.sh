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

# verify-go-mod-tidy.sh fails when `go mod tidy` would change go.mod or go.sum of the main
# module, of the tools module or of the benchmark's chart modules (test/bench/chart and
# test/bench/chartfile), printing the change it would make. It uses `go mod tidy
# -diff`, which never writes the files, rather than tidying and restoring a copy: others may
# be editing go.mod while this runs, and a restore would undo their edit.
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

failed=()
for dir in . hack/tools test/bench/chart test/bench/chartfile; do
  if ! netfork::run go -C "${dir}" mod tidy -diff; then
    failed+=("${dir}")
  fi
done

if [[ ${#failed[@]} -gt 0 ]]; then
  for dir in "${failed[@]}"; do
    if [[ "${dir}" == . ]]; then
      echo "go.mod: not tidy; fix with: go mod tidy"
    else
      echo "${dir}/go.mod: not tidy; fix with: go -C ${dir} mod tidy"
    fi
  done
  exit 1
fi
netfork::log "OK: go.mod and go.sum are tidy"
