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

# verify-boilerplate.sh fails when a Go file, shell script, Makefile or Dockerfile that git
# would track lacks netfork's license header (hack/boilerplate/boilerplate.*.txt) at its
# top: after the shebang in a script, after a "//go:build" line and its blank line in Go
# (where gofmt keeps build constraints), first thing in any other file. --fix adds it.
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

fix=0
if [[ "${1:-}" == "--fix" ]]; then fix=1; fi

go_header="$(cat hack/boilerplate/boilerplate.go.txt)"
sh_header="$(cat hack/boilerplate/boilerplate.sh.txt)"

# kind_of prints "go" or "sh" for a file that must carry a header, nothing otherwise.
kind_of() {
  case "$1" in
    _output/* | hack/tools/bin/*) return ;;
    *.go) echo go ;;
    *.sh | Makefile | */Makefile | Dockerfile | */Dockerfile | .ci/run) echo sh ;;
    *) if [[ "$(head -c 2 "$1")" == "#!" ]]; then echo sh; fi ;;
  esac
}

# has_header reports whether file $1 of kind $2 starts with its header.
has_header() {
  local skip=0
  if [[ "$2" == sh && "$(head -c 2 "$1")" == "#!" ]]; then skip=1; fi
  if [[ "$2" == go && "$(head -n 1 "$1")" == //go:build* ]]; then skip=2; fi
  local header="${go_header}"
  if [[ "$2" == sh ]]; then header="${sh_header}"; fi
  [[ "$(tail -n +$((skip + 1)) "$1" | head -n "$(wc -l <<<"${header}")")" == "${header}" ]]
}

# add_header puts the header of kind $2 at the top of file $1, after a shebang.
add_header() {
  local header="${go_header}" tmp
  if [[ "$2" == sh ]]; then header="${sh_header}"; fi
  tmp="$(mktemp)"
  if [[ "$(head -c 2 "$1")" == "#!" ]]; then
    { head -n 1 "$1"; echo "${header}"; echo; tail -n +2 "$1"; } >"${tmp}"
  else
    { echo "${header}"; echo; cat "$1"; } >"${tmp}"
  fi
  cat "${tmp}" >"$1"
  rm -f "${tmp}"
}

checked=0
missing=()
while IFS= read -r -d '' f; do
  [[ -f "${f}" ]] || continue
  kind="$(kind_of "${f}")"
  [[ -n "${kind}" ]] || continue
  checked=$((checked + 1))
  has_header "${f}" "${kind}" && continue
  if [[ ${fix} -eq 1 ]]; then
    add_header "${f}" "${kind}"
  else
    missing+=("${f}")
  fi
done < <(git ls-files -z --cached --others --exclude-standard)

if [[ ${#missing[@]} -gt 0 ]]; then
  printf '%s: no license header (hack/boilerplate/boilerplate.*.txt)\n' "${missing[@]}"
  netfork::log "add them with: hack/verify-boilerplate.sh --fix"
  exit 1
fi
netfork::log "OK: ${checked} files carry the license header"
