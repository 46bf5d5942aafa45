#!/usr/bin/env bash
# verify-no-upstream-allocators.sh fails when netfork's own non-test Go code constructs one of
# upstream's allocators (ipallocator New, NewInMemory, NewFromSnapshot, NewMetaAllocator,
# NewIPAllocator; their controllers' repair loops; portallocator New, NewInMemory, NewFromSnapshot; allocator.NewAllocationMap*;
# anything from allocator/storage), which netfork replaces with its own in
# pkg/registry/core/service. Upstream's types and errors may still be used. Tests may construct
# upstream's to compare with. With file arguments it checks only those files.
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

upstream="k8s.io/kubernetes/pkg/registry/core/service"
# banned maps an upstream import path to the regexp of its constructors netfork must not call;
# "*" bans the import itself.
declare -A banned=(
  ["${upstream}/ipallocator"]='New|NewInMemory|NewFromSnapshot|NewMetaAllocator|NewIPAllocator'
  ["${upstream}/portallocator"]='New|NewInMemory|NewFromSnapshot'
  ["${upstream}/ipallocator/controller"]='NewRepair|NewRepairIPAddress'
  ["${upstream}/portallocator/controller"]='NewRepair'
  ["${upstream}/allocator"]='NewAllocationMap|NewAllocationMapWithOffset|NewContiguousAllocationMap'
  ["${upstream}/allocator/storage"]='*'
)

files=("$@")
if [[ ${#files[@]} -eq 0 ]]; then
  while IFS= read -r -d '' f; do
    case "${f}" in
      _output/* | hack/tools/* | test/* | *_test.go) continue ;;
    esac
    [[ -f "${f}" ]] && files+=("${f}")
  done < <(git ls-files -z --cached --others --exclude-standard -- '*.go')
fi

# alias prints the name file refers to the package path by, nothing when it does not import it.
alias_of() {
  local file="$1" path="$2" line
  line="$(grep -E "^[[:space:]]*(import[[:space:]]+)?([A-Za-z_][A-Za-z0-9_]*[[:space:]]+)?\"${path}\"" "${file}" | head -n 1)" || true
  [[ -z "${line}" ]] && return 0
  line="${line#*import }"
  if [[ "${line}" =~ ^[[:space:]]*([A-Za-z_][A-Za-z0-9_]*)[[:space:]]+\" ]]; then
    echo "${BASH_REMATCH[1]}"
  else
    echo "${path##*/}"
  fi
}

found=0
for f in "${files[@]}"; do
  for path in "${!banned[@]}"; do
    name="$(alias_of "${f}" "${path}")"
    [[ -z "${name}" || "${name}" == "_" ]] && continue
    if [[ "${banned[${path}]}" == "*" ]]; then
      echo "${f}: imports ${path}; use github.com/netfork/netfork/pkg/registry/core/service/allocator/storage"
      found=1
      continue
    fi
    if hits="$(grep -nE "\\b${name}\\.(${banned[${path}]})\\b" "${f}")"; then
      while IFS= read -r hit; do
        echo "${f}:${hit%%:*}: constructs upstream's ${path##*/service/} (${name}.…): use netfork's package at the same path"
      done <<<"${hits}"
      found=1
    fi
  done
done

if [[ ${found} -ne 0 ]]; then
  netfork::log "netfork code constructs upstream allocators (see above)"
  exit 1
fi
netfork::log "OK: ${#files[@]} Go files construct no upstream allocator"
