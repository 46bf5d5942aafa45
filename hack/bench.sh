#!/usr/bin/env bash
# bench.sh is `make bench`: the short Service-allocation benchmark (N=1000 and 10000 Services,
# no extra ServiceCIDRs, one round, every contender), under 10 minutes on 2 cores when the
# allocators are fast. Arguments go to bench-services.sh: make bench ARGS=--full runs the
# full matrix (N up to 100000, up to 1000 extra ServiceCIDRs, 3 rounds) in under an hour.
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

exec "${NETFORK_ROOT}/hack/bench-services.sh" "$@"
