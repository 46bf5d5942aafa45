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

# verify-k8s-pins.sh checks that go.mod's generated replace block pins exactly the staging
# modules upstream's go.mod replaces to ./staging, each at the staging version matching the
# k8s.io/kubernetes requirement, in sorted order. It prints one line per problem.
# GOMOD_FILE=path checks another go.mod (e.g. a copy) instead of the repo's; without it the
# script checks the repo's go.mod and every upstream release's module in hack/upstream/, and
# then prints a notice (not a failure) when the module proxy serves a newer patch release of
# k8s.io/kubernetes than go.mod pins.
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
source "${NETFORK_ROOT}/hack/lib/gomod.sh"

if [[ -z "${GOMOD_FILE:-}" ]]; then
  status=0
  for gomod in go.mod hack/upstream/*/go.mod; do
    [[ -f "${gomod}" ]] || continue
    GOMOD_FILE="${gomod}" "$0" || status=1
  done
  netfork::gomod::notice_newer_patch go.mod
  exit "${status}"
fi

# Sorting and comparisons below are bytewise, as bump-k8s.sh sorts.
export LC_ALL=C

gomod="${GOMOD_FILE:-go.mod}"
if [[ ! -f "${gomod}" ]]; then
  netfork::log "${gomod}: no such file"
  exit 1
fi

k8s_version="$(netfork::gomod::k8s_version "${gomod}")"
staging_version="$(netfork::gomod::staging_version "${k8s_version}")"
upstream="$(netfork::gomod::upstream_staging "${k8s_version}")"
if [[ -z "${upstream}" ]]; then
  netfork::log "k8s.io/kubernetes@${k8s_version}'s go.mod replaces nothing to ./staging"
  exit 1
fi
declare -A want=()
for m in ${upstream}; do
  want["${m}"]=1
done

failures=0
problem() {
  echo "${gomod}:$1: $2"
  failures=$((failures + 1))
}

declare -A seen=()
state=before # before, in or after the generated block
lineno=0
prev=""
header_version=""
header_re='(bump-k8s|pin-upstream)\.sh[[:space:]]+(v[0-9][^[:space:];)]*)'
begin_line=0
while IFS= read -r raw || [[ -n "${raw}" ]]; do
  lineno=$((lineno + 1))
  case "${raw}" in
    "// BEGIN staging pins"*)
      state=in
      begin_line=${lineno}
      if [[ "${raw}" =~ ${header_re} ]]; then
        header_version="${BASH_REMATCH[2]}"
      fi
      continue
      ;;
    "// END staging pins"*)
      state=after
      continue
      ;;
  esac

  read -r -a words <<<"${raw%%//*}" # drop comments, split on blanks
  line="${words[*]}"
  [[ -z "${line}" ]] && continue
  if [[ "${line}" != *"=>"* ]]; then
    if [[ "${state}" == in && "${line}" != "replace (" && "${line}" != ")" ]]; then
      problem "${lineno}" "unexpected line in the staging pins block: ${line}"
    fi
    continue
  fi

  line="${line#replace }"
  read -r -a old <<<"${line%%=>*}"
  read -r -a new <<<"${line#*=>}"
  module="${old[0]}"

  if [[ "${state}" != in ]]; then
    if [[ "${module}" == k8s.io/* ]]; then
      problem "${lineno}" "${module}: replaced outside the generated staging pins block"
    fi
    continue
  fi

  if [[ -z "${want[${module}]:-}" ]]; then
    problem "${lineno}" "${module}: not a staging module of k8s.io/kubernetes ${k8s_version}; drop it"
  fi
  if [[ -n "${seen[${module}]:-}" ]]; then
    problem "${lineno}" "${module}: pinned twice (first on line ${seen[${module}]})"
  fi
  seen["${module}"]=${lineno}
  if [[ "${prev}" > "${module}" ]]; then
    problem "${lineno}" "${module}: block not sorted: comes after ${prev}"
  fi
  prev="${module}"
  if [[ ${#old[@]} -ne 1 ]]; then
    problem "${lineno}" "${module}: replaces only version ${old[1]:-?}; pin every version"
  fi
  got="${new[*]}"
  if [[ "${got}" != "${module} ${staging_version}" ]]; then
    problem "${lineno}" "${module}: pinned to '${got}', want '${module} ${staging_version}' (k8s.io/kubernetes ${k8s_version})"
  fi
done <"${gomod}"

case "${state}" in
  before) problem "${lineno}" "no '// BEGIN staging pins' line" ;;
  in) problem "${begin_line}" "no '// END staging pins' line after the BEGIN line" ;;
esac
if [[ -n "${header_version}" && "${header_version}" != "${k8s_version}" ]]; then
  problem "${begin_line}" "block says it was generated for ${header_version} but go.mod requires k8s.io/kubernetes ${k8s_version}"
fi
for m in ${upstream}; do
  if [[ -z "${seen[${m}]:-}" ]]; then
    problem "${begin_line}" "${m}: missing from the staging pins block (upstream replaces it to ./staging)"
  fi
done

if [[ ${failures} -gt 0 ]]; then
  fix="hack/bump-k8s.sh"
  [[ "${gomod}" == hack/upstream/* ]] && fix="hack/pin-upstream.sh"
  netfork::log "${failures} problem(s); regenerate the block with: ${fix} ${k8s_version}"
  exit 1
fi
netfork::log "OK: ${#seen[@]} staging modules pinned at ${staging_version} for k8s.io/kubernetes ${k8s_version}"
