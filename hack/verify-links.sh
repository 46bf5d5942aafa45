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

# verify-links.sh fails when a relative link in a markdown file git would track does not
# resolve: [text](path), [text](path#anchor), [text](#anchor) and reference definitions
# ([name]: path). A path must name an existing file or directory (relative to the file, or to
# the repo root when it starts with /); an anchor must be the GitHub slug of a heading of the
# target markdown file. Links with a scheme (https:, mailto:, ...) are not fetched. Links in
# fenced code blocks and inline code are not links.
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

# Unicode-aware [:alnum:] for heading slugs where the C.UTF-8 locale exists.
if locale -a 2>/dev/null | grep -qix 'c\.utf-\?8'; then
  export LC_ALL=C.UTF-8
fi

# prose prints a markdown file's lines outside fenced code blocks as "LINE<TAB>TEXT", with
# inline code spans removed; with "links" as its second argument it prints each link target
# instead, as "LINE<TAB>TARGET".
prose() {
  awk -v links="${2:-}" '
    /^[ \t]*(```|~~~)/ { fenced = !fenced; next }
    fenced { next }
    {
      gsub(/`[^`]*`/, "")
      if (links == "") { print NR "\t" $0; next }
      rest = $0
      while (match(rest, /\]\([^) \t]+/)) {
        print NR "\t" substr(rest, RSTART + 2, RLENGTH - 2)
        rest = substr(rest, RSTART + RLENGTH)
      }
      if (match($0, /^ ? ? ?\[[^]]+\]:[ \t]+[^ \t]+/)) {
        def = substr($0, RSTART, RLENGTH)
        sub(/^.*\]:[ \t]+/, "", def)
        print NR "\t" def
      }
    }
  ' "$1"
}

# slug prints GitHub's anchor for a heading's text: markup dropped, lower case, punctuation
# removed, spaces as hyphens.
slug() {
  local s="$1"
  s="${s//\`/}"
  s="$(sed -E 's/\[([^]]*)\]\([^)]*\)/\1/g' <<<"${s}")"
  s="${s,,}"
  s="${s//[^[:alnum:] _-]/}"
  echo "${s// /-}"
}

# anchors prints every heading anchor of a markdown file, one a line, duplicates numbered
# as GitHub numbers them (name, name-1, name-2, ...).
anchors() {
  local line text s
  local -A seen=()
  while IFS=$'\t' read -r _ line; do
    [[ "${line}" =~ ^\ {0,3}#{1,6}[[:space:]]+(.*)$ ]] || continue
    text="$(sed -E 's/[[:space:]]+#+[[:space:]]*$//; s/[[:space:]]+$//' <<<"${BASH_REMATCH[1]}")"
    s="$(slug "${text}")"
    if [[ -n "${seen[${s}]+set}" ]]; then
      seen[${s}]=$((seen[${s}] + 1))
      s="${s}-${seen[${s}]}"
    else
      seen[${s}]=0
    fi
    echo "${s}"
  done < <(prose "$1")
}

# check_link prints what is wrong with one link target of a markdown file, or nothing.
check_link() {
  local file="$1" target="$2" path anchor resolved
  case "${target}" in
    *:*) return ;; # a scheme: http(s), mailto, ... (not fetched)
  esac
  path="${target%%#*}"
  anchor=""
  [[ "${target}" == *#* ]] && anchor="${target#*#}"
  if [[ -z "${path}" ]]; then
    resolved="${file}"
  elif [[ "${path}" == /* ]]; then
    resolved="${path#/}"
  else
    resolved="$(dirname "${file}")/${path}"
  fi
  if [[ ! -e "${resolved}" ]]; then
    echo "no such file: ${path}"
    return
  fi
  if [[ -n "${anchor}" ]]; then
    if [[ "${resolved}" != *.md || -d "${resolved}" ]]; then
      echo "anchor #${anchor} on ${path}, which is not a markdown file"
    elif ! grep -qxF -- "${anchor}" <<<"$(anchors "${resolved}")"; then
      echo "no heading for #${anchor} in ${resolved#./}"
    fi
  fi
}

files=()
while IFS= read -r -d '' f; do
  [[ -f "${f}" ]] && files+=("${f}") # skip tracked files deleted in the worktree
done < <(git ls-files -z --cached --others --exclude-standard -- '*.md')

broken=0
links=0
for file in "${files[@]}"; do
  while IFS=$'\t' read -r n t; do
    t="${t#<}"
    t="${t%>}"
    links=$((links + 1))
    problem="$(check_link "${file}" "${t}")"
    if [[ -n "${problem}" ]]; then
      echo "${file}:${n}: broken link (${t}): ${problem}"
      broken=$((broken + 1))
    fi
  done < <(prose "${file}" links)
done

if [[ ${broken} -gt 0 ]]; then
  netfork::log "${broken} broken link(s) in ${#files[@]} markdown files"
  exit 1
fi
netfork::log "OK: ${links} links in ${#files[@]} markdown files resolve"
