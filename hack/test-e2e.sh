#!/usr/bin/env bash
# test-e2e.sh runs the ginkgo suite in test/e2e against an existing cluster, by default the
# one `make run` started. It runs the suite with go test (ginkgo flags go to the test
# binary), so the ginkgo library pinned in go.mod is the only ginkgo involved.
#   KUBECONFIG     cluster to test (default _output/local/kubeconfig); the suite reads it
#   GINKGO_FOCUS   regexp of specs to run; GINKGO_SKIP regexp of specs to skip
#   GINKGO_ARGS    more ginkgo flags, e.g. "-ginkgo.label-filter=dualstack"
#   TIMEOUT        whole-suite timeout (default 60m)
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

if [[ ! -d test/e2e ]]; then
  netfork::log "test/e2e does not exist yet; nothing to run"
  exit 0
fi

export KUBECONFIG="${KUBECONFIG:-${NETFORK_OUTPUT}/local/kubeconfig}"
if [[ ! -f "${KUBECONFIG}" ]]; then
  netfork::log "no kubeconfig at ${KUBECONFIG}: start a cluster with 'make run' or set KUBECONFIG"
  exit 1
fi

timeout="${TIMEOUT:-60m}"
args=(-ginkgo.v -ginkgo.timeout="${timeout}")
[[ -n "${GINKGO_FOCUS:-}" ]] && args+=(-ginkgo.focus="${GINKGO_FOCUS}")
[[ -n "${GINKGO_SKIP:-}" ]] && args+=(-ginkgo.skip="${GINKGO_SKIP}")
read -r -a extra <<<"${GINKGO_ARGS:-}"
netfork::log "testing the cluster in ${KUBECONFIG}"
netfork::run go test -count=1 -timeout "${timeout}" ./test/e2e/... -args "${args[@]}" "${extra[@]}"
