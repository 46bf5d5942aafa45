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

# test-e2e-gates.sh runs the feature-gate matrix: for every valid combination of
# MultiCIDRServiceAllocator (M) x DisableAllocatorDualWrite (D) x DualStackAPIServer (S)
# it starts one local-up of 3 apiservers with dual-stack ranges on the same data dir
# (no --clean after the first), checks with test/cluster-check that no Service was lost
# or changed its IPs since the previous combination (and no duplicates, IPAddresses,
# bitmaps, the kubernetes Service's shape), runs the API suite of test/e2e with the
# disruptive hook, and stops it. The invalid combination (M=false with D=false: there is
# no IPAddress allocator to dual-write from) must be refused by the binary at local-up's
# preflight with its one error line, leaving nothing running and the data as it was.
# Prints a table; exits 1 when any combination fails.
#   LOCAL_UP_PORT      local-up's --port (default 6443)
#   GATES_DATA_DIR     the data dir kept across combinations (default _output/gates)
#   COMBINATIONS       which valid combinations, in order, as M/D/S triples of t and f
#                      (default all six: "ttf tff ftf ftt tft ttt")
#   GINKGO_LABEL_FILTER passed to the suite (default: every API-level spec)
# Each combination's check, suite output and apiserver/etcd logs stay in GATES_DATA_DIR.run/.
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
source "${NETFORK_ROOT}/hack/lib/localup.sh"

port="${LOCAL_UP_PORT:-6443}"
data_dir="${GATES_DATA_DIR:-${NETFORK_OUTPUT}/gates}"
read -r -a combinations <<<"${COMBINATIONS:-ttf tff ftf ftt tft ttt}"
invalid=(fff fft)
work="${data_dir}.run"

for c in "${combinations[@]}"; do
  if [[ ! "${c}" =~ ^[tf]{3}$ || "${c}" == ff? ]]; then
    netfork::log "COMBINATIONS: ${c} is not a valid M/D/S triple of t and f (ff? is the invalid combination)"
    exit 1
  fi
done

# gates turns a triple into a --feature-gates value.
gates() {
  local c="$1" v=()
  for i in 0 1 2; do
    [[ "${c:i:1}" == t ]] && v+=(true) || v+=(false)
  done
  echo "MultiCIDRServiceAllocator=${v[0]},DisableAllocatorDualWrite=${v[1]},DualStackAPIServer=${v[2]}"
}

netfork::run hack/build.sh
netfork::run go build -o "${NETFORK_OUTPUT}/bin/cluster-check" ./test/cluster-check
trap netfork::localup::stop EXIT
rm -rf "${work}" "${data_dir}"
mkdir -p "${work}"

# seed creates the Services every later combination must keep, of every kind.
seed() {
  netfork::run kubectl apply -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Namespace
metadata: {name: netfork-gates}
---
apiVersion: v1
kind: Service
metadata: {name: clusterip, namespace: netfork-gates}
spec: {ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: nodeport, namespace: netfork-gates}
spec: {type: NodePort, ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: dual, namespace: netfork-gates}
spec: {ipFamilyPolicy: RequireDualStack, ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: dual-nodeport, namespace: netfork-gates}
spec: {type: NodePort, ipFamilyPolicy: PreferDualStack, ports: [{name: tcp, port: 80, protocol: TCP}, {name: udp, port: 80, protocol: UDP}]}
---
apiVersion: v1
kind: Service
metadata: {name: static, namespace: netfork-gates}
spec: {clusterIP: 10.96.0.200, type: NodePort, ports: [{port: 80, nodePort: 30005}]}
---
apiVersion: v1
kind: Service
metadata: {name: headless, namespace: netfork-gates}
spec: {clusterIP: None, ports: [{port: 80}]}
YAML
}

rows=()
failed=0
previous=""
# run_combination starts the cluster with gates $1, checks it, runs the suite, stops it.
run_combination() {
  local c="$1" start=$SECONDS m="${1:0:1}" s="${1:2:1}" check_args=() result="ok"
  local log="${work}/${c}" families=single passed="-" failedn="-" skipped="-" kept="-"
  [[ "${s}" == t ]] && families=dual
  if ! netfork::localup::start "${data_dir}" --port "${port}" --apiservers 3 -- --feature-gates="$(gates "${c}")"; then
    rows+=("${c}|$(gates "${c}")|-|-|-|-|$((SECONDS - start))|FAIL: local-up did not start")
    failed=1
    [[ -d "${data_dir}/logs" ]] && cp -r "${data_dir}/logs" "${log}.logs" && netfork::log "${c}: logs in ${log}.logs"
    return
  fi
  export KUBECONFIG="${data_dir}/kubeconfig"
  [[ -z "${previous}" ]] && seed
  check_args=(--etcd-endpoints "$(netfork::localup::etcd_url)" --apiservers 3 --apiserver-families "${families}"
    --snapshot-out "${work}/${c}.snapshot" --title "== ${c}: $(gates "${c}")")
  [[ -n "${previous}" ]] && check_args+=(--snapshot-in "${work}/${previous}.snapshot")
  # The ClusterIP bitmaps are kept whole only by a bitmap-only apiserver's repair loop;
  # an IPAddress apiserver that dual-writes adds to them but repairs nothing (as upstream).
  if [[ "${m}" == f ]]; then
    check_args+=(--clusterip-bitmaps)
  fi
  [[ "${m}" == t ]] && check_args+=(--ipaddresses=true) || check_args+=(--ipaddresses=false)
  if ! netfork::run "${NETFORK_OUTPUT}/bin/cluster-check" "${check_args[@]}" | tee "${log}.check"; then
    result="FAIL: cluster-check"
  fi
  kept="$(sed -n 's/^Services kept *ok *\([0-9]*\) Services unchanged.*/\1/p' "${log}.check")"
  if ! NETFORK_E2E_HOOK="${NETFORK_ROOT}/hack/local-up-hook.sh" LOCAL_UP_DATA_DIR="${data_dir}" \
    NETFORK_E2E_APISERVER_FAMILIES="${families}" GINKGO_ARGS="-ginkgo.no-color" \
    GINKGO_LABEL_FILTER="${GINKGO_LABEL_FILTER:-!netns && !datapath}" hack/test-e2e.sh >"${log}.e2e" 2>&1; then
    result="FAIL: e2e (${log}.e2e)${result#ok}"
  fi
  local summary
  summary="$(grep -E '(SUCCESS|FAIL)! -- ' "${log}.e2e" | tail -1)"
  if [[ "${summary}" =~ ([0-9]+)\ Passed\ \|\ ([0-9]+)\ Failed\ \|\ [0-9]+\ Pending\ \|\ ([0-9]+)\ Skipped ]]; then
    passed="${BASH_REMATCH[1]}" failedn="${BASH_REMATCH[2]}" skipped="${BASH_REMATCH[3]}"
  fi
  netfork::localup::stop
  # local-up truncates its logs at its next start: keep this combination's.
  cp -r "${data_dir}/logs" "${log}.logs"
  if [[ "${result}" != ok ]]; then
    failed=1
    netfork::log "${c}: ${result}; apiserver and etcd logs in ${log}.logs"
  fi
  rows+=("${c}|$(gates "${c}")|${passed}|${failedn}|${skipped}|${kept:--}|$((SECONDS - start))|${result}")
  previous="${c}"
}

# refused is the error line local-up must print for an invalid combination: the binary
# refuses the gates at local-up's preflight (kube-apiserver FLAGS --version), before
# local-up starts etcd or writes anything.
refused='^local-up: error: (apiserver [0-9]+: )?kube-apiserver rejects its flags: Error: --feature-gates: DisableAllocatorDualWrite=false \(dual-write\) needs MultiCIDRServiceAllocator=true'

# refuse_invalid starts local-up with the invalid combination $1 and expects the binary
# to refuse it: a non-zero exit, the refused line, nothing left running, nothing in the
# data dir changed.
refuse_invalid() {
  local c="$1" start=$SECONDS result line marker="${work}/${1}.before"
  touch "${marker}"
  if netfork::localup::start "${data_dir}" --port "${port}" --apiservers 3 -- --feature-gates="$(gates "${c}")" 2>/dev/null; then
    netfork::localup::stop
    result="FAIL: the binary started with the invalid combination"
  else
    line="$(grep 'local-up: error' "${data_dir}.log" | tail -1)"
    result="refused: $(cut -c1-160 <<<"${line}")"
    if [[ ! "${line}" =~ ${refused} ]]; then
      result="FAIL: not the refusal of the gates: ${line:-no error line} (log ${data_dir}.log)"
    elif [[ -S "${data_dir}/local-up.sock" ]] || pgrep -f -- "--data-dir ${data_dir} " >/dev/null; then
      result="FAIL: something left running after the refusal"
    elif [[ -n "$(find "${data_dir}" -newer "${marker}" -print -quit)" ]]; then
      result="FAIL: the refusal changed $(find "${data_dir}" -newer "${marker}" -print -quit)"
    fi
  fi
  [[ "${result}" == FAIL* ]] && failed=1
  rows+=("${c}|$(gates "${c}")|-|-|-|-|$((SECONDS - start))|${result}")
}

for c in "${combinations[@]}"; do
  run_combination "${c}"
  # The invalid combination is tried once the cluster has data, after the bitmap-only one.
  if [[ "${c}" == ftf ]]; then
    for bad in "${invalid[@]}"; do
      refuse_invalid "${bad}"
    done
  fi
done
if [[ ! " ${combinations[*]} " == *" ftf "* ]]; then
  for bad in "${invalid[@]}"; do
    refuse_invalid "${bad}"
  done
fi

printf '\n%-4s %-86s %6s %6s %7s %5s %5s  %s\n' M/D/S "feature gates" passed failed skipped kept secs result
for row in "${rows[@]}"; do
  IFS='|' read -r c g p f s k secs res <<<"${row}"
  printf '%-4s %-86s %6s %6s %7s %5s %5s  %s\n' "${c}" "${g}" "${p}" "${f}" "${s}" "${k}" "${secs}" "${res}"
done
exit "${failed}"
