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

# test-e2e.sh runs the ginkgo suite in test/e2e. With KUBECONFIG set it tests that
# cluster as it is (a local-up, a kind cluster); without it, it builds, starts its own
# local-up (3 apiservers in _output/e2e, --clean), points the disruptive specs' hook at it
# (hack/local-up-hook.sh) and stops it afterwards. It runs the suite with go test (ginkgo
# flags go to the test binary), so the ginkgo library pinned in go.mod is the only one.
#   KUBECONFIG          cluster to test; unset: the script's own local-up
#   LOCAL_UP_PORT       that local-up's --port (default 6443)
#   LOCAL_UP_APISERVERS its --apiservers (default 3)
#   LOCAL_UP_DATA_DIR   its --data-dir (default _output/e2e)
#   LOCAL_UP_ARGS       more local-up flags, e.g. "-- --feature-gates=DualStackAPIServer=true"
#   GINKGO_LABEL_FILTER ginkgo label filter, e.g. "KEP-1880 && !disruptive"
#   GINKGO_FOCUS        regexp of specs to run; GINKGO_SKIP regexp of specs to skip
#   GINKGO_ARGS         more ginkgo flags; REPORT=path writes a JSON report there
#   TIMEOUT             whole-suite timeout (default 30m)
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
source "${NETFORK_ROOT}/hack/lib/localup.sh"

timeout="${TIMEOUT:-30m}"
args=(-ginkgo.v -ginkgo.timeout="${timeout}")
[[ -n "${GINKGO_LABEL_FILTER:-}" ]] && args+=(-ginkgo.label-filter="${GINKGO_LABEL_FILTER}")
[[ -n "${GINKGO_FOCUS:-}" ]] && args+=(-ginkgo.focus="${GINKGO_FOCUS}")
[[ -n "${GINKGO_SKIP:-}" ]] && args+=(-ginkgo.skip="${GINKGO_SKIP}")
[[ -n "${REPORT:-}" ]] && args+=(-ginkgo.json-report="${REPORT}")
read -r -a extra <<<"${GINKGO_ARGS:-}"

if [[ -z "${KUBECONFIG:-}" ]]; then
  read -r -a local_up_args <<<"${LOCAL_UP_ARGS:-}"
  data_dir="${LOCAL_UP_DATA_DIR:-${NETFORK_OUTPUT}/e2e}"
  netfork::run hack/build.sh
  trap netfork::localup::stop EXIT
  netfork::localup::start "${data_dir}" --clean --port "${LOCAL_UP_PORT:-6443}" \
    --apiservers "${LOCAL_UP_APISERVERS:-3}" "${local_up_args[@]}"
  export KUBECONFIG="${data_dir}/kubeconfig"
  export NETFORK_E2E_HOOK="${NETFORK_ROOT}/hack/local-up-hook.sh" LOCAL_UP_DATA_DIR="${data_dir}"
  # local-up advertises a pair per apiserver exactly when DualStackAPIServer is on with its
  # dual-stack default ranges; say so, so the KEP-2438 spec checks the shape it must have.
  if [[ " ${local_up_args[*]} " == *DualStackAPIServer=true* && " ${local_up_args[*]} " != *service-cluster-ip-range* ]]; then
    export NETFORK_E2E_APISERVER_FAMILIES=dual
  else
    export NETFORK_E2E_APISERVER_FAMILIES=single
  fi
fi

netfork::log "testing the cluster in ${KUBECONFIG}"
netfork::run go test -v -count=1 -timeout "${timeout}" ./test/e2e/... -args "${args[@]}" "${extra[@]}"
