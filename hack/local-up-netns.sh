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

# local-up-netns.sh runs a dual-stack netfork control plane on three "hosts" of one machine:
# three network namespaces, each with one IPv4 address from 198.18.0.0/15 and one IPv6
# address from the ULA fd6e:6574:666b::/64, joined by veth pairs to a bridge that lives in a
# fourth namespace, so the machine's own network is never touched. Each host runs one
# netfork kube-apiserver bound and advertised on both of its addresses
# (DualStackAPIServer=true, dual-stack service ranges), all on one embedded etcd.
#
#   hack/local-up-netns.sh [-- kube-apiserver flags]   bring it up, print a ready line, run
#                                                      until Ctrl-C or SIGTERM, tear down
#   hack/local-up-netns.sh --test                      bring it up, run the e2e specs labelled
#                                                      netns (test/e2e) against it, tear down;
#                                                      the exit code is the tests'
#   hack/local-up-netns.sh --down                      remove what a killed run left behind
#
# The topology is made here with iproute2; cmd/local-up-netns (Go) starts etcd, the PKI
# and the apiservers in it and stops them by PID. Everything is removed on exit, on
# failure and on Ctrl-C. It needs root and the `ip` command; where network namespaces
# cannot be created, --test prints SKIP with the reason and exits 0, the other modes fail.
#   NETNS_PREFIX   names of the namespaces: <prefix>-hub, <prefix>-1..3 (default nfk)
#   DATA_DIR       PKI, etcd, logs, kubeconfig and hosts.json (default _output/netns)
#   READY_TIMEOUT  how long to wait for every apiserver (default 180s)
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

prefix="${NETNS_PREFIX:-nfk}"
data_dir="${DATA_DIR:-${NETFORK_OUTPUT}/netns}"
hosts=3
# Host i (from 1) gets ${ipv4_net}.i/24 and ${ipv6_net}i/64; neither is routed anywhere.
ipv4_net="198.19.0"
ipv6_net="fd6e:6574:666b::"
hub="${prefix}-hub"

mode=run
case "${1:-}" in
  --test | --down) mode="${1#--}"; shift ;;
  --help | -h) sed -n '2,/^source/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
esac
if [[ "${mode}" != run && $# -gt 0 ]]; then
  netfork::log "--${mode} takes no arguments (got: $*)"
  exit 1
fi
if [[ $# -gt 0 && "$1" != "--" ]]; then
  netfork::log "unexpected argument $1: kube-apiserver flags go after --"
  exit 1
fi
[[ "${1:-}" == "--" ]] && shift

# namespaces lists this run's namespaces, hosts first and the hub last.
namespaces() {
  local i
  for ((i = 1; i <= hosts; i++)); do echo "${prefix}-${i}"; done
  echo "${hub}"
}

# netns_unavailable prints why the host cannot create network namespaces, or nothing.
netns_unavailable() {
  if [[ "$(id -u)" != 0 ]]; then
    echo "not root (uid $(id -u)): creating network namespaces needs CAP_SYS_ADMIN"
    return
  fi
  if ! command -v ip >/dev/null; then
    echo "no 'ip' command (iproute2) in PATH"
    return
  fi
  local probe="${prefix}-probe-$$" out
  if ! out="$(ip netns add "${probe}" 2>&1)"; then
    echo "ip netns add ${probe}: ${out}"
    return
  fi
  ip netns del "${probe}"
}

# leftovers lists this prefix's namespaces that exist now.
leftovers() {
  local ns
  for ns in $(namespaces); do
    [[ -e "/run/netns/${ns}" ]] && echo "${ns}"
  done
  return 0
}

# topology_down stops anything still running in this run's namespaces (by PID: a killed
# local-up-netns may have left an apiserver behind) and deletes them, which deletes the
# veth pairs and the bridge with them.
topology_down() {
  local ns pids
  for ns in $(leftovers); do
    pids="$(ip netns pids "${ns}" 2>/dev/null || true)"
    if [[ -n "${pids}" ]]; then
      netfork::log "stopping PIDs left in ${ns}: ${pids//$'\n'/ }"
      # shellcheck disable=SC2086 # one PID per word
      kill -KILL ${pids} 2>/dev/null || true
    fi
    ip netns del "${ns}" || netfork::log "could not delete namespace ${ns}"
  done
}

# topology_up makes the hub with its bridge and each host with its veth and addresses.
# DAD is off for the IPv6 addresses, so they are usable at once.
topology_up() {
  local i ns
  ip netns add "${hub}"
  ip -n "${hub}" link set lo up
  ip -n "${hub}" link add br0 type bridge forward_delay 0 mcast_snooping 0
  ip -n "${hub}" link set br0 up
  for ((i = 1; i <= hosts; i++)); do
    ns="${prefix}-${i}"
    ip netns add "${ns}"
    ip -n "${ns}" link set lo up
    ip -n "${hub}" link add "veth${i}" type veth peer name eth0 netns "${ns}"
    ip -n "${hub}" link set "veth${i}" master br0 up
    ip -n "${ns}" addr add "${ipv4_net}.${i}/24" dev eth0
    ip -n "${ns}" addr add "${ipv6_net}${i}/64" dev eth0 nodad
    ip -n "${ns}" link set eth0 up
  done
}

# host_flags names each host to cmd/local-up-netns as namespace,IPv4,IPv6.
host_flags() {
  local i
  for ((i = 1; i <= hosts; i++)); do
    echo "--host=${prefix}-${i},${ipv4_net}.${i},${ipv6_net}${i}"
  done
}

# Only root can make namespaces (or install iproute2 without sudo); anyone else gets the
# reason from netns_unavailable below.
if [[ "$(id -u)" -eq 0 ]]; then
  hack/install-deps.sh netns
fi

if [[ "${mode}" == down ]]; then
  topology_down
  left="$(leftovers)"
  [[ -z "${left}" ]] || { netfork::log "still there: ${left//$'\n'/ }"; exit 1; }
  exit 0
fi

if why="$(netns_unavailable)" && [[ -n "${why}" ]]; then
  if [[ "${mode}" == test ]]; then
    netfork::log "SKIP: the netns e2e specs need network namespaces: ${why}"
    exit 0
  fi
  netfork::log "cannot create network namespaces: ${why}"
  exit 1
fi
if left="$(leftovers)" && [[ -n "${left}" ]]; then
  netfork::log "namespaces ${left//$'\n'/ } exist: another local-up-netns runs, or a killed one left them (remove with $0 --down, or set NETNS_PREFIX)"
  exit 1
fi
apiserver="${NETFORK_OUTPUT}/bin/kube-apiserver"
if [[ ! -x "${apiserver}" ]]; then
  netfork::log "${apiserver#"${NETFORK_ROOT}/"} is missing; run make build first"
  exit 1
fi
netfork::run go build -o "${NETFORK_OUTPUT}/bin/local-up-netns" ./cmd/local-up-netns
mkdir -p "${data_dir}"

cluster_pid=""
# finish stops the cluster by its PID (it stops the apiservers and etcd), then removes the
# namespaces; it runs on every exit.
finish() {
  local rc=$?
  trap - EXIT INT TERM
  if [[ -n "${cluster_pid}" ]] && kill -0 "${cluster_pid}" 2>/dev/null; then
    kill -TERM "${cluster_pid}"
    wait "${cluster_pid}" || true
  fi
  topology_down
  left="$(leftovers)"
  if [[ -n "${left}" ]]; then
    netfork::log "could not remove ${left//$'\n'/ }"
    rc=1
  fi
  exit "${rc}"
}
trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

netfork::log "creating namespaces $(namespaces | tr '\n' ' ')"
topology_up
mapfile -t host_args < <(host_flags)
cluster=("${NETFORK_OUTPUT}/bin/local-up-netns" --data-dir="${data_dir}" --apiserver-binary="${apiserver}"
  --ready-timeout="${READY_TIMEOUT:-180s}" "${host_args[@]}" -- "$@")

# The cluster runs in the background, so that this script can stop it by its PID; bash
# runs a trap during `wait`, but not while a foreground child runs.
netfork::log "+ ${cluster[*]}"
if [[ "${mode}" == run ]]; then
  "${cluster[@]}" &
  cluster_pid=$!
  wait "${cluster_pid}"
  exit $?
fi

# --test: wait for the ready line, then run the specs against the cluster.
ready="${data_dir}/ready"
rm -f "${ready}"
"${cluster[@]}" >"${ready}" &
cluster_pid=$!
until grep -q "ready in" "${ready}" 2>/dev/null; do
  if ! kill -0 "${cluster_pid}" 2>/dev/null; then
    wait "${cluster_pid}" && rc=0 || rc=$?
    netfork::log "local-up-netns exited (${rc}) before it was ready"
    exit 1
  fi
  sleep 0.5
done
cat "${ready}" >&2
export KUBECONFIG="${data_dir}/kubeconfig" NETFORK_NETNS_HOSTS="${data_dir}/hosts.json"
netfork::run go test -count=1 -v -timeout "${TIMEOUT:-20m}" ./test/e2e/ \
  -args -ginkgo.v -ginkgo.label-filter=netns
