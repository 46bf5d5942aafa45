#!/usr/bin/env bash
# bench-services.sh builds and runs the Service-allocation benchmark (hack/bench-services)
# against netfork's kube-apiserver from `make build` and upstream v1.37.1's, which it builds
# from this module's graph into _output/upstream (go build relinks only when that changed),
# unless $NETFORK_UPSTREAM_APISERVER names one. Arguments go to the benchmark, e.g.
# --full, --n=1000 --contenders=netfork,upstream, --profile, --help.
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

netfork_apiserver="${NETFORK_OUTPUT}/bin/kube-apiserver"
if [[ ! -x "${netfork_apiserver}" ]]; then
  netfork::log "${netfork_apiserver#"${NETFORK_ROOT}/"} is missing; run make build first"
  exit 1
fi
upstream_apiserver="${NETFORK_UPSTREAM_APISERVER:-${NETFORK_OUTPUT}/upstream/kube-apiserver}"
if [[ -z "${NETFORK_UPSTREAM_APISERVER:-}" ]]; then
  netfork::run go build -o "${upstream_apiserver}" k8s.io/kubernetes/cmd/kube-apiserver
fi
netfork::run go build -o "${NETFORK_OUTPUT}/bin/bench-services" ./hack/bench-services

# exec, so Ctrl-C and SIGTERM reach the benchmark, which stops every process it started.
exec "${NETFORK_OUTPUT}/bin/bench-services" \
  --netfork-binary="${netfork_apiserver}" --upstream-binary="${upstream_apiserver}" "$@"
