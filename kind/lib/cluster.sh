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

# cluster.sh writes kind's cluster configuration for a topology and changes a running control
# plane's kube-apiserver the way kubeadm upgrades do: by rewriting its static-pod manifest and
# waiting for kubelet to run the new one. Sourced after network.sh.

# NETFORK_KIND_CLUSTERS holds one folder per cluster: kind.yaml, kubeconfig, state.
# shellcheck disable=SC2034 # read by the kind scripts that source this library
NETFORK_KIND_CLUSTERS="${NETFORK_KIND_OUTPUT}/clusters"
# netfork::kind::state prints what up.sh recorded under key $2 (slot, bridge, topology or family) in
# cluster $1's state file, or nothing when the cluster has no state file or no such key.
netfork::kind::state() {
  sed -n "s/^$2=//p" "${NETFORK_KIND_CLUSTERS}/$1/state" 2>/dev/null || true
}
# APISERVER_MANIFEST is the kube-apiserver static pod inside a control-plane node.
APISERVER_MANIFEST=/etc/kubernetes/manifests/kube-apiserver.yaml

# netfork::kind::dualstack_patches writes into $1 the kubeadm patch that drops the
# --advertise-address kubeadm gives every apiserver (its single localAPIEndpoint address), so
# that netfork with DualStackAPIServer=true advertises the node's address of each family, as
# KEP-2438 defaults it. kubeadm sorts the flags, so it is the first after the command.
netfork::kind::dualstack_patches() {
  mkdir -p "$1"
  echo '[{"op": "remove", "path": "/spec/containers/0/command/1"}]' >"$1/kube-apiserver+json.json"
}

# netfork::kind::config prints kind's configuration for cluster $1.
#   topology (single|dual|ha), ip_family (ipv4|dual), workers, gates, runtime_config, apiserver_args (array of
#   name=value) and kcm_servicecidr (true: keep kube-controller-manager's service-cidr-controller)
#   are read from the caller's variables of those names; slot vars must be set.
# shellcheck disable=SC2154 # topology, ip_family, workers, apiserver_args and kcm_servicecidr are the caller's, as above
netfork::kind::config() {
  local name="$1" family=ipv4 pods="${NETFORK_KIND_POD_V4}" svcs="${NETFORK_KIND_SVC_V4}" i arg
  if [[ "${ip_family}" == dual ]]; then
    family=dual
    pods+=",${NETFORK_KIND_POD_V6}"
    svcs+=",${NETFORK_KIND_SVC_V6}"
  fi
  cat <<YAML
kind: Cluster
apiVersion: kind.x-k8s.io/v1alpha4
name: ${name}
networking:
  ipFamily: ${family}
  podSubnet: "${pods}"
  serviceSubnet: "${svcs}"
  kubeProxyMode: nftables
YAML
  [[ -n "${runtime_config}" ]] && netfork::kind::runtime_config_yaml "${runtime_config}"
  echo "nodes:"
  local cps=1 role mount=""
  [[ "${topology}" == ha ]] && cps=3
  if [[ -n "${NETFORK_KIND_PATCHES:-}" ]]; then
    mount=$'\n  extraMounts:\n  - {hostPath: "'"${NETFORK_KIND_PATCHES}"'", containerPath: /kind/netfork-patches, readOnly: true}'
  fi
  for ((i = 0; i < cps + workers; i++)); do
    role=worker
    ((i < cps)) && role=control-plane
    echo "- role: ${role}${mount}"
  done
  # containerd reads per-registry hosts.toml files from certs.d (none by default; conformance
  # runs add a registry.k8s.io mirror, netfork::kind::start_registry)
  cat <<'YAML'
containerdConfigPatches:
- |-
  [plugins."io.containerd.grpc.v1.cri".registry]
    config_path = "/etc/containerd/certs.d"
YAML
  if [[ "${NETFORK_KIND_RESTRICT_OOM}" == true ]]; then
    cat <<'YAML'
- |-
  [plugins."io.containerd.grpc.v1.cri"]
    restrict_oom_score_adj = true
YAML
  fi
  echo "kubeadmConfigPatches:"
  if [[ "${NETFORK_KIND_CGROUP_V1}" == true ]]; then
    printf -- '- |\n  kind: KubeletConfiguration\n  failCgroupV1: false\n'
  fi
  if [[ -n "${NETFORK_KIND_PATCHES:-}" ]]; then
    printf -- '- |\n  kind: %s\n  patches:\n    directory: /kind/netfork-patches\n' InitConfiguration JoinConfiguration
  fi
  cat <<YAML
kubeadmConfigPatchesJSON6902:
- group: kubeadm.k8s.io
  version: v1beta4
  kind: ClusterConfiguration
  patch: |
YAML
  [[ -n "${gates}" ]] && echo "    - {op: add, path: /apiServer/extraArgs/-, value: {name: feature-gates, value: \"${gates}\"}}"
  for arg in "${apiserver_args[@]}"; do
    echo "    - {op: add, path: /apiServer/extraArgs/-, value: {name: \"${arg%%=*}\", value: \"${arg#*=}\"}}"
  done
  # /debug/pprof stays off unless asked for (--apiserver-arg profiling=true, bench.sh --profile)
  [[ " ${apiserver_args[*]} " == *" profiling="* ]] ||
    echo "    - {op: add, path: /apiServer/extraArgs/-, value: {name: profiling, value: \"false\"}}"
  # netfork's apiservers own ServiceCIDR deletion (60 s grace, every IPAddress counted, the
  # DeletionBlocked event): kube-controller-manager runs kubeadm's controller list without
  # upstream's service-cidr-controller, whose 10 s grace would otherwise win the race
  [[ "${kcm_servicecidr:-false}" == true ]] ||
    echo "    - {op: add, path: /controllerManager/extraArgs/-, value: {name: controllers, value: \"${NETFORK_KIND_KCM_CONTROLLERS}\"}}"
}

# NETFORK_KIND_KCM_CONTROLLERS is kube-controller-manager's --controllers on netfork's kind
# clusters: kubeadm's default (*,bootstrapsigner,tokencleaner) less service-cidr-controller.
NETFORK_KIND_KCM_CONTROLLERS="*,bootstrapsigner,tokencleaner,-service-cidr-controller"

# netfork::kind::runtime_config_yaml prints kind's runtimeConfig for a --runtime-config value.
netfork::kind::runtime_config_yaml() {
  local kv
  echo "runtimeConfig:"
  IFS=, read -r -a kvs <<<"$1"
  for kv in "${kvs[@]}"; do
    [[ "${kv}" == *=* ]] || kv+="=true"
    echo "  \"${kv%%=*}\": \"${kv#*=}\""
  done
}

# netfork::kind::nodes prints cluster $1's node containers with role $2 (control-plane or
# worker), in kind's order (name sort: control-plane, control-plane2, ...).
netfork::kind::nodes() {
  docker ps -a --filter "label=io.x-k8s.kind.cluster=$1" --filter "label=io.x-k8s.kind.role=$2" \
    --format '{{.Names}}' | sort -V
}

# netfork::kind::node_ips prints a node's IPv4 and (if any) IPv6 address on its network, comma-separated.
netfork::kind::node_ips() {
  docker inspect -f '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{if .GlobalIPv6Address}},{{.GlobalIPv6Address}}{{end}}{{end}}' "$1"
}

# netfork::kind::process_pid prints the PID (in node $1) of the oldest process whose command
# is $2, if one runs. It matches the command line: pgrep -x would compare the kernel's name
# of the process, cut at 15 characters (kube-controller).
netfork::kind::process_pid() {
  docker exec "$1" pgrep -o -f "^$2( |\$)" 2>/dev/null || true
}

# netfork::kind::apiserver_pid prints the PID (in the node) of its kube-apiserver, if running.
netfork::kind::apiserver_pid() {
  netfork::kind::process_pid "$1" kube-apiserver
}

# netfork::kind::wait_apiserver waits until node $1 runs a kube-apiserver other than PID $2
# whose /readyz answers ok on the node's own address, for at most $3 seconds (default 180).
netfork::kind::wait_apiserver() {
  local node="$1" old="$2" limit="${3:-180}" start=${SECONDS} pid ip
  ip="$(netfork::kind::node_ips "${node}")"
  ip="${ip%%,*}"
  while ((SECONDS - start < limit)); do
    pid="$(netfork::kind::apiserver_pid "${node}")"
    if [[ -n "${pid}" && "${pid}" != "${old}" ]] &&
      docker exec "${node}" curl -fsk --max-time 2 "https://${ip}:6443/readyz" >/dev/null 2>&1; then
      return 0
    fi
    sleep 1
  done
  netfork::kind::die "${node}: kube-apiserver not ready within ${limit}s"
}

# netfork::kind::set_apiserver rewrites node $1's kube-apiserver manifest: "image=IMAGE" sets
# the image, "--flag=value" sets (or adds) a flag, "--flag" alone removes it; then it waits for
# kubelet to replace the static pod (when the manifest changed) and for /readyz.
netfork::kind::set_apiserver() {
  local node="$1" old script="" change
  shift
  for change in "$@"; do
    case "${change}" in
      image=*) script+="s|^\\(    image: \\).*|\\1${change#image=}|;" ;;
      --*=*) script+="/^    - ${change%%=*}=/d;/^    - kube-apiserver\$/a\\    - ${change}
;" ;;
      --*) script+="/^    - ${change}=/d;" ;;
      *) netfork::kind::die "set_apiserver: ${change}: want image=IMAGE, --flag=value or --flag" ;;
    esac
  done
  old="$(netfork::kind::apiserver_pid "${node}")"
  netfork::kind::edit_manifest "${node}" "${APISERVER_MANIFEST}" "${script}" || old=""
  netfork::kind::wait_apiserver "${node}" "${old}"
}

# netfork::kind::edit_manifest runs sed script $3 on node $1's static-pod manifest $2 and
# fails when that changed nothing (kubelet then restarts nothing).
netfork::kind::edit_manifest() {
  local before
  before="$(docker exec "$1" md5sum "$2")"
  docker exec "$1" sed -i -e "$3" "$2"
  [[ "$(docker exec "$1" md5sum "$2")" != "${before}" ]]
}

# netfork::kind::switch_apiserver switches node $1's kube-apiserver to target $2 (one static-pod
# manifest rewrite, then /readyz of the new process) and checks that the apiserver now serving
# on the node reports the target's version; the caller sources images.sh too:
#   upstream            upstream's apiserver at go.mod's pin, no netfork gates, one advertise address
#   upstream@vX.Y.Z     the same at another release, whose image the node must hold
#   netfork             netfork's image, default gates, one advertise address
#   netfork-dualstack   netfork's image, DualStackAPIServer=true, IPv4,IPv6 advertise pair
netfork::kind::switch_apiserver() {
  local node="$1" target="$2" ips version="" want
  ips="$(netfork::kind::node_ips "${node}")"
  [[ "${target}" == upstream@* ]] && version="${target#upstream@}"
  want="${version:-${K8S_VERSION}}"
  if [[ "${target}" == netfork* ]]; then
    netfork::version::get_vars
    want="${NETFORK_GIT_VERSION}"
  fi
  case "${target}" in
    upstream | upstream@*)
      netfork::kind::set_apiserver "${node}" "image=$(netfork::kind::upstream_apiserver_image "${version}")" \
        --feature-gates "--advertise-address=${ips%%,*}" ;;
    netfork)
      netfork::kind::set_apiserver "${node}" "image=$(netfork::kind::netfork_apiserver_image)" \
        --feature-gates "--advertise-address=${ips%%,*}" ;;
    netfork-dualstack)
      netfork::kind::set_apiserver "${node}" "image=$(netfork::kind::netfork_apiserver_image)" \
        --feature-gates=DualStackAPIServer=true "--advertise-address=${ips}" ;;
    *) netfork::kind::die "switch_apiserver: ${target} is not upstream, upstream@vX.Y.Z, netfork or netfork-dualstack" ;;
  esac
  netfork::kind::check_apiserver_version "${node}" "${want}"
}

# netfork::kind::apiserver_version prints the version the kube-apiserver serving on node $1
# reports, asked directly on the node's address.
netfork::kind::apiserver_version() {
  local ip
  ip="$(netfork::kind::node_ips "$1")"
  docker exec "$1" curl -fsk --max-time 5 "https://${ip%%,*}:6443/version" | jq -r .gitVersion
}

# netfork::kind::check_apiserver_version fails unless the kube-apiserver serving on node $1,
# asked directly on the node's address, reports version $2.
netfork::kind::check_apiserver_version() {
  local served
  served="$(netfork::kind::apiserver_version "$1")"
  [[ "${served}" == "$2" ]] || netfork::kind::die "$1: kube-apiserver reports ${served:-nothing}, want $2"
  netfork::log "$1: kube-apiserver ${served}"
}

# netfork::kind::delete_on_exit makes the calling script delete cluster $1 (down.sh) whenever it
# exits, Ctrl-C and SIGTERM included, first writing the cluster's logs to $2 (logs.sh) when it
# fails; $3=true keeps the cluster instead.
netfork::kind::delete_on_exit() {
  NETFORK_KIND_EXIT_CLUSTER="$1"
  NETFORK_KIND_EXIT_LOGS="$2"
  NETFORK_KIND_EXIT_KEEP="${3:-false}"
  trap netfork::kind::on_exit EXIT
  trap 'exit 130' INT TERM
}

# netfork::kind::containers prints the IDs of cluster $1's containers: kind's nodes and the ones
# netfork runs beside them (a conformance run's registry).
netfork::kind::containers() {
  docker ps -aq --filter "label=io.x-k8s.kind.cluster=$1"
  docker ps -aq --filter "label=netfork.kind.cluster=$1"
}

# netfork::kind::leftover succeeds when anything of cluster $1 is left for down.sh to delete: a
# container, its docker network or its folder (which names its bridge).
netfork::kind::leftover() {
  [[ -n "$(netfork::kind::containers "$1")" ]] ||
    docker network inspect "$(netfork::kind::network_name "$1")" >/dev/null 2>&1 ||
    [[ -d "${NETFORK_KIND_CLUSTERS}/$1" ]]
}

# netfork::kind::on_exit is delete_on_exit's EXIT trap; it keeps the script's exit status, or
# fails a run that passed when the cluster could not be deleted. A cluster whose creation
# failed is already gone (up.sh removes what it made): nothing to collect or delete then.
netfork::kind::on_exit() {
  local status=$? name="${NETFORK_KIND_EXIT_CLUSTER}" out
  trap - EXIT INT TERM
  if ! netfork::kind::leftover "${name}"; then
    netfork::log "nothing of cluster ${name} is left to collect logs of or delete"
    exit "${status}"
  fi
  if ((status != 0)); then
    netfork::kind::export_logs "${name}" "${NETFORK_KIND_EXIT_LOGS}" || true
  fi
  if [[ "${NETFORK_KIND_EXIT_KEEP}" == true ]]; then
    netfork::log "kept cluster ${name} (make kind-down NAME=${name} deletes it)"
  elif out="$("${NETFORK_ROOT}/kind/down.sh" --name "${name}" 2>&1)"; then
    netfork::log "deleted cluster ${name}"
  else
    netfork::log "could not delete cluster ${name}: $(tail -n 1 <<<"${out}") (make kind-down NAME=${name} retries)"
    ((status != 0)) || status=1
  fi
  exit "${status}"
}

# netfork::kind::thaw thaws every frozen cgroup v1 freezer cgroup under the given containers'
# own. runc with the systemd cgroup driver freezes a container's cgroup while it sets the
# container up; a pod container caught there when its node is killed stays FROZEN, its
# processes can never exit, and docker rm -f fails ("tried to kill container, but did not
# receive an exit event"). Nothing to do on cgroup v2 or where the freezer is not writable.
netfork::kind::thaw() {
  local root=/sys/fs/cgroup/freezer id pid cg f
  [[ -w "${root}" ]] || return 0
  for id in "$@"; do
    pid="$(docker inspect -f '{{.State.Pid}}' "${id}" 2>/dev/null || true)"
    [[ -n "${pid}" && "${pid}" != 0 ]] || continue
    cg="$(sed -n 's/^[0-9]*:freezer://p' "/proc/${pid}/cgroup" 2>/dev/null || true)"
    [[ -n "${cg}" && -d "${root}${cg}" ]] || continue
    while IFS= read -r f; do
      if [[ "$(cat "${f}" 2>/dev/null)" != THAWED ]]; then
        echo THAWED >"${f}" 2>/dev/null || true
      fi
    done < <(find "${root}${cg}" -name freezer.state 2>/dev/null)
  done
}

# netfork::kind::wait_ready waits until every node is Ready and CoreDNS is available; its
# arguments are the kubectl command (binary and --kubeconfig).
netfork::kind::wait_ready() {
  netfork::run "$@" wait --for=condition=Ready nodes --all --timeout=180s >/dev/null
  netfork::run "$@" -n kube-system rollout status deployment/coredns --timeout=180s >/dev/null
}
