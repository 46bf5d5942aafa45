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

# verify.sh installs what the checks need beyond Go (hack/install-deps.sh verify), runs every
# hack/verify-*.sh, keeps going past failures so one run shows them all, and ends with a
# pass/fail line per check.
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

hack/install-deps.sh verify

results=()
failed=0
for script in hack/verify-*.sh; do
  name="$(basename "${script}" .sh)"
  echo "=== ${name}"
  start=${SECONDS}
  if bash "${script}"; then
    results+=("PASS ${name} ($((SECONDS - start))s)")
  else
    results+=("FAIL ${name} ($((SECONDS - start))s)")
    failed=$((failed + 1))
  fi
done

echo "=== summary"
printf '%s\n' "${results[@]}"
if [[ ${failed} -gt 0 ]]; then
  netfork::log "${failed} of ${#results[@]} checks failed"
  exit 1
fi
netfork::log "all ${#results[@]} checks passed"
