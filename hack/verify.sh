#!/usr/bin/env bash
# verify.sh runs every hack/verify-*.sh, keeps going past failures so one run shows them all,
# and ends with a pass/fail line per check.
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

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
