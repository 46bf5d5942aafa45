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

# verify-shellcheck.sh runs shellcheck (Debian's, from hack/install-deps.sh verify) over every
# shell script git would track: *.sh, .ci/run, and files without an extension under hack/
# whose first line is a bash or sh shebang. Sourced libraries are followed (-x, .shellcheckrc),
# every finding fails; a finding that is right to keep needs an inline
# "# shellcheck disable=SCxxxx # reason" directive.
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

if ! command -v shellcheck >/dev/null; then
  netfork::log "shellcheck is not installed: run hack/install-deps.sh verify"
  exit 1
fi

scripts=()
while IFS= read -r -d '' f; do
  [[ -f "${f}" ]] || continue # tracked but deleted in the worktree
  case "${f}" in
    _output/* | hack/tools/bin/*) continue ;;
    *.sh | .ci/run) scripts+=("${f}") ;;
    hack/*)
      base="${f##*/}"
      if [[ "${base}" != *.* ]] && head -n1 "${f}" | grep -qE '^#!(/usr)?/bin/(env )?(ba)?sh\b'; then
        scripts+=("${f}")
      fi
      ;;
  esac
done < <(git ls-files -z --cached --others --exclude-standard)

if [[ ${#scripts[@]} -eq 0 ]]; then
  netfork::log "no shell scripts found"
  exit 1
fi
if ! shellcheck -x --format=gcc "${scripts[@]}"; then
  netfork::log "shellcheck $(shellcheck --version | sed -n 's/^version: //p') found the problems above; fix each, or keep it with an inline '# shellcheck disable=SCxxxx # reason'"
  exit 1
fi
netfork::log "OK: ${#scripts[@]} scripts are shellcheck-clean ($(shellcheck --version | sed -n 's/^version: //p'))"
