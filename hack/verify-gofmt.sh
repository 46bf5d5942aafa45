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

# verify-gofmt.sh fails when any Go file git would track (committed or new, not ignored) is
# not gofmt-formatted, listing each such file. Generated output and the tools module are not
# checked.
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

files=()
while IFS= read -r -d '' f; do
  case "${f}" in
    _output/* | hack/tools/*) continue ;;
  esac
  [[ -f "${f}" ]] && files+=("${f}") # skip tracked files deleted in the worktree
done < <(git ls-files -z --cached --others --exclude-standard -- '*.go')

if [[ ${#files[@]} -eq 0 ]]; then
  netfork::log "OK: no Go files to check"
  exit 0
fi

# gofmt exits non-zero on a syntax error; its message already names the file.
unformatted="$(gofmt -l "${files[@]}")" || {
  netfork::log "gofmt could not parse the files above"
  exit 1
}
if [[ -n "${unformatted}" ]]; then
  mapfile -t bad <<<"${unformatted}"
  printf '%s: not gofmt-formatted\n' "${bad[@]}"
  netfork::log "fix with: gofmt -w ${bad[*]}"
  exit 1
fi
netfork::log "OK: ${#files[@]} Go files are gofmt-formatted"
