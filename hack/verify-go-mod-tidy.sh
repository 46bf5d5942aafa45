#!/usr/bin/env bash
# verify-go-mod-tidy.sh fails when `go mod tidy` would change go.mod or go.sum of the main
# module, of the tools module or of the chart module (hack/bench-chart), printing the change it would make. It uses `go mod tidy
# -diff`, which never writes the files, rather than tidying and restoring a copy: others may
# be editing go.mod while this runs, and a restore would undo their edit.
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

failed=()
for dir in . hack/tools hack/bench-chart; do
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
