#!/usr/bin/env bash
# init.sh is sourced first by every hack/ script so that each runs in strict mode from the
# repo root and prints the commands it runs the same way.

set -euo pipefail

NETFORK_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)"
export NETFORK_ROOT
cd "${NETFORK_ROOT}"

# NETFORK_OUTPUT is where builds, tool caches and local clusters go; it is gitignored.
NETFORK_OUTPUT="${NETFORK_ROOT}/_output"
export NETFORK_OUTPUT

# netfork::log prints one line prefixed with the calling script's name, on stderr so that it
# never mixes into output another tool parses.
netfork::log() {
  echo "$(basename "$0"): $*" >&2
}

# netfork::run prints a command, shell-quoted, before running it, so a log shows exactly
# what to paste to reproduce a step.
netfork::run() {
  local arg line="+"
  for arg in "$@"; do
    if [[ "${arg}" =~ ^[A-Za-z0-9_./:=@%+,-]+$ ]]; then
      line+=" ${arg}"
    else
      arg="${arg//\\/\\\\}"
      arg="${arg//\"/\\\"}"
      arg="${arg//\$/\\\$}"
      arg="${arg//\`/\\\`}"
      line+=" \"${arg}\""
    fi
  done
  echo "${line}" >&2
  "$@"
}
