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

# verify-upstream-shims.sh checks hack/upstream-shims.txt, the list of netfork's code that
# stands beside upstream code because upstream leaves no seam there. In netfork's Go files
# each such region lies between "// upstream-shim begin: <upstream file> <function>" and
# "// upstream-shim end". It fails when:
#   - a listed upstream file's sha256 at the version go.mod pins differs from the list
#     (a bump changed it: port the shims that stand beside it, then update the sum),
#   - a listed upstream function (or variable) is gone from that file,
#   - a region names a shim that is not listed, a listed shim has no region in its netfork
#     file, or a region is left open,
#   - an entry's regions hold more lines than the entry's budget (its "lines" column), or a
#     change raises a budget and leaves the reason above the entry as it was: the list is
#     compared with its version before its latest change (before the uncommitted change, or
#     before the last commit that changed it),
#   - the regions hold more than max_lines lines of code in all. Counted is what re-types upstream's
#     logic: not blank lines, comments, lines gofmt leaves holding only closing brackets, nor Go's
#     bare error propagation ("if err != nil {" then "return err" or "return nil, err");
#     an error wrapped in upstream's words counts,
#   - hack/shimscan finds a run of 6 or more significant lines, in any of netfork's Go files
#     (tests included), that matches upstream's source token for token (in the k8s.io
#     packages netfork imports, upstream's packages at netfork's paths, and upstream's
#     test/integration and test/e2e/network) outside a marked region.
# It prints each shim's netfork lines and the total.
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

list="hack/upstream-shims.txt"
# max_lines is the budget of all the regions, what they hold today; it only goes down: a shim
# added to the list takes its lines from a shim removed or shrunk.
max_lines=251

pin="$(go list -m -f '{{.Version}}' k8s.io/kubernetes)"

# module_file prints the path in the module cache of a file named as <module>/<path>, where
# the module is k8s.io/<name>, at the version go.mod pins.
module_file() {
  local module dir
  module="$(cut -d/ -f1-2 <<<"$1")"
  dir="$(go list -m -f '{{.Dir}}' "${module}" 2>/dev/null)" || true
  [[ -n "${dir}" ]] && echo "${dir}/${1#"${module}"/}"
}

failed=0
fail() {
  echo "${list}: $*"
  failed=1
}

# decl_pattern is the regexp of upstream's declaration of name: a function ("Func"), a method
# ("Recv.Method"), or a package-level variable or constant ("name = ..." in a var or const block).
decl_pattern() {
  local name="$1"
  if [[ "${name}" == *.* ]]; then
    echo "^func \\([A-Za-z_]* \\*?${name%%.*}\\) ${name#*.}\\("
  else
    echo "^(func ${name}\\(|(var|const) ${name} |[[:space:]]${name} +=)"
  fi
}

# entries prints each entry of the list on stdin as "<netfork file> <upstream file>
# <functions>\t<budget>\t<sha256>\t<reason>", the reason being the comment lines right above
# it, joined. A list from before the budgets were added has no budget: it prints "-".
entries() {
  awk '
    /^#/ { reason = reason $0 " "; next }
    NF == 0 { reason = ""; next }
    {
      budget = (NF >= 5 && $4 ~ /^[0-9]+$/) ? $4 : "-"
      printf "%s %s %s\t%s\t%s\t%s\n", $1, $2, $3, budget, $NF, reason
      reason = ""
    }
  '
}

# previous_list prints the list as it was before its latest change, or nothing where git
# has no such version (a list never committed, a shallow clone).
previous_list() {
  local rev
  if ! git diff --quiet HEAD -- "${list}" 2>/dev/null; then
    rev=HEAD
  else
    rev="$(git log -1 --format=%H -- "${list}" 2>/dev/null)~1"
  fi
  git show "${rev}:${list}" 2>/dev/null || true
}

declare -A budget_before=()
declare -A reason_before=()
while IFS=$'\t' read -r entry budget _ reason; do
  budget_before["${entry}"]="${budget}"
  reason_before["${entry}"]="${reason}"
done < <(previous_list | entries)

# listed holds the entries by "<netfork file> <upstream file> <functions>", listed_in the
# netfork files of each "<upstream file> <functions>", budget_of each entry's budget.
declare -A listed=()
declare -A listed_in=()
declare -A budget_of=()
budgets=0
while IFS=$'\t' read -r entry budget sum reason; do
  read -r netfork_file upstream_file functions <<<"${entry}"
  key="${upstream_file} ${functions}"
  listed["${entry}"]=1
  listed_in["${key}"]+="${netfork_file} "
  if [[ -z "${reason}" ]]; then
    fail "${netfork_file}'s shim of ${key} has no reason: put it on a comment line right above"
  fi
  if [[ "${budget}" == - ]]; then
    fail "${netfork_file}'s shim of ${key} has no budget: put its lines before the sha256"
  else
    budget_of["${entry}"]="${budget}"
    budgets=$((budgets + budget))
    before="${budget_before["${entry}"]:--}"
    if [[ "${before}" != - && ${budget} -gt ${before} && "${reason}" == "${reason_before["${entry}"]}" ]]; then
      fail "${netfork_file}'s shim of ${key}: its budget went from ${before} to ${budget} lines with the same reason; say in the reason why it needs more"
    fi
  fi
  path="$(module_file "${upstream_file}")"
  if [[ -z "${path}" || ! -f "${path}" ]]; then
    fail "${upstream_file} no longer exists at ${pin}; port ${netfork_file}'s shim of ${functions}"
    continue
  fi
  got="$(sha256sum "${path}" | cut -d' ' -f1)"
  if [[ "${got}" != "${sum}" ]]; then
    fail "${upstream_file} changed at ${pin} (sha256 ${got}); port ${netfork_file}'s shim of ${functions}, then update its sum"
  fi
  for function in ${functions//,/ }; do
    if ! grep -qE "$(decl_pattern "${function}")" "${path}"; then
      fail "${upstream_file} at ${pin} has no ${function}; port ${netfork_file}'s shim of it"
    fi
  done
done < <(entries <"${list}")

declare -A lines_of=()
declare -A where=()
total=0
while IFS= read -r -d '' f; do
  case "${f}" in _output/* | hack/tools/*) continue ;; esac
  # awk prints "<key>\t<first line>-<last line>\t<code lines>" per region, or ERROR lines.
  while IFS=$'\t' read -r key range count; do
    if [[ "${key}" == ERROR* ]]; then
      fail "${f}: ${key#ERROR }"
      continue
    fi
    if [[ -z "${listed["${f} ${key}"]:-}" ]]; then
      if [[ -n "${listed_in[${key}]:-}" ]]; then
        fail "${f}:${range%%-*}: region for ${key}, which is listed for ${listed_in[${key}]% } only"
      else
        fail "${f}:${range%%-*}: region for ${key}, which is not listed"
      fi
      continue
    fi
    lines_of["${f} ${key}"]=$((${lines_of["${f} ${key}"]:-0} + count))
    where["${f} ${key}"]+="${f}:${range} "
    total=$((total + count))
  done < <(awk '
    function code(line) {
      return line !~ /^[[:space:]]*$/ && line !~ /^[[:space:]]*\/\// && line !~ /^[[:space:]]*[})\]]+[,)]*[[:space:]]*$/
    }
    /^[[:space:]]*\/\/ upstream-shim begin: / {
      if (open) { print "ERROR line " NR ": region opened inside another"; }
      open = 1; key = $0; sub(/.*\/\/ upstream-shim begin: /, "", key); first = NR; count = 0; held = 0; next
    }
    /^[[:space:]]*\/\/ upstream-shim end/ {
      if (!open) { print "ERROR line " NR ": region closed but never opened"; next }
      printf "%s\t%d-%d\t%d\n", key, first, NR, count + held; open = 0; next
    }
    !open { next }
    held && /^[[:space:]]*return ((nil|""|0|false), )*err$/ { held = 0; next }
    held { count++; held = 0 }
    /^[[:space:]]*if err != nil \{$/ { held = 1; next }
    code($0) { count++ }
    END { if (open) print "ERROR line " first ": region never closed" }
  ' "${f}")
done < <(git ls-files -z --cached --others --exclude-standard -- '*.go')

for key in "${!listed[@]}"; do
  if [[ -z "${lines_of[${key}]:-}" ]]; then
    fail "${key#* } is listed for ${key%% *}, which has no region for it"
  elif [[ -n "${budget_of[${key}]:-}" && ${lines_of[${key}]} -gt ${budget_of[${key}]} ]]; then
    fail "${key%% *}'s shim of ${key#* } holds ${lines_of[${key}]} lines, its budget is ${budget_of[${key}]}: use upstream's code instead, or raise the budget with a reason that says why"
  fi
done

printf '%-5s %-80s %s\n' lines "upstream (${pin})" "netfork"
for key in $(printf '%s\n' "${!lines_of[@]}" | tr ' ' '|' | LC_ALL=C sort -t'|' -k2); do
  key="${key//|/ }"
  printf '%-5s %-80s %s\n' "${lines_of[${key}]}" "${key#* }" "${where[${key}]}"
done
echo "total: ${total} lines of code stand beside upstream's (budgets ${budgets}, limit ${max_lines})"
if [[ ${total} -gt ${max_lines} ]]; then
  fail "the shims hold ${total} lines, the limit is ${max_lines}: use upstream's code instead"
fi
if [[ ${budgets} -gt ${max_lines} ]]; then
  fail "the budgets add up to ${budgets} lines, the limit is ${max_lines}: a shim's lines come from another's"
fi

# shimscan prints each run that matches upstream outside a region, and its totals.
if ! go build -o "${NETFORK_OUTPUT}/bin/shimscan" ./hack/shimscan || ! "${NETFORK_OUTPUT}/bin/shimscan"; then
  failed=1
fi

if [[ ${failed} -ne 0 ]]; then
  netfork::log "upstream shims need attention (see above)"
  exit 1
fi
netfork::log "OK: ${#listed[@]} shims, ${total} lines, upstream files unchanged at ${pin}"
