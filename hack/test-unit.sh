#!/usr/bin/env bash
# test-unit.sh runs the unit tests: every package of the module except those under test/,
# which start apiservers and etcd and run from test-integration.sh and test-e2e.sh.
# No -race (too slow on a 2-core machine) and no -count=1, so unchanged packages come from
# the test cache. WHAT="./pkg/..." narrows the packages; VERBOSE=1 adds -v; TIMEOUT sets the
# per-binary timeout; GOTESTFLAGS adds flags (e.g. GOTESTFLAGS="-run TestAllocate -count=1").
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

module="$(go list -m)"
read -r -a what <<<"${WHAT:-./...}"
# -e lists packages that do not compile too, so go test reports their errors rather than
# this script dropping them.
mapfile -t pkgs < <(go list -e "${what[@]}" 2>/dev/null |
  grep -Ev "^${module//./\\.}/test(/|$)" || true)
if [[ ${#pkgs[@]} -eq 0 ]]; then
  netfork::log "no unit-test packages in ${what[*]} yet; nothing to test"
  exit 0
fi

# local-up's end-to-end tests run the kube-apiserver `make build` made, and skip without one.
if [[ -z "${NETFORK_APISERVER_BINARY:-}" && -x "${NETFORK_OUTPUT}/bin/kube-apiserver" ]]; then
  export NETFORK_APISERVER_BINARY="${NETFORK_OUTPUT}/bin/kube-apiserver"
  netfork::log "local-up end-to-end tests use ${NETFORK_APISERVER_BINARY}"
fi

flags=(-timeout "${TIMEOUT:-20m}")
if [[ "${VERBOSE:-0}" == 1 ]]; then
  flags+=(-v)
fi
read -r -a extra <<<"${GOTESTFLAGS:-}"
netfork::log "testing ${#pkgs[@]} packages"
netfork::run go test "${flags[@]}" "${extra[@]}" "${pkgs[@]}"
