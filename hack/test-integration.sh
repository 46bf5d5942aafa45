#!/usr/bin/env bash
# test-integration.sh runs test/integration: in-process apiservers on embedded etcd. -p 1
# runs one package at a time, since each package starts its own etcd and apiservers and two
# at once overload a 2-core machine into timeouts. VERBOSE=1 adds -v; WHAT narrows the
# packages; TIMEOUT overrides 45m; GOTESTFLAGS adds flags.
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

if [[ ! -d test/integration ]]; then
  netfork::log "test/integration does not exist yet; nothing to test"
  exit 0
fi

read -r -a what <<<"${WHAT:-./test/integration/...}"
flags=(-p 1 -timeout "${TIMEOUT:-45m}")
if [[ "${VERBOSE:-0}" == 1 ]]; then
  flags+=(-v)
fi
read -r -a extra <<<"${GOTESTFLAGS:-}"
netfork::run go test "${flags[@]}" "${extra[@]}" "${what[@]}"
