#!/usr/bin/env bash
# clean.sh removes what the hack/ scripts produce: _output (binaries, local cluster data,
# upstream builds) and the built tools. Go's module and build caches are left alone.
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

netfork::run rm -rf "${NETFORK_OUTPUT}" "${NETFORK_ROOT}/hack/tools/bin"
