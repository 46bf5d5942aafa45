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

# ranges.sh rolls a running cluster's nodes to another Service range, the node side of a
# renumber (docs/operations.md): a control plane's apiserver serving certificate, kube-apiserver
# and kube-controller-manager flags, and each kubelet's configuration from kubeadm's
# kubelet-config ConfigMap; and kube-controller-manager's ServiceCIDR controller for
# upgrade.sh. Sourced after cluster.sh. openssl reads the certificate on the host.

# KCM_MANIFEST is the kube-controller-manager static pod inside a control-plane node.
KCM_MANIFEST=/etc/kubernetes/manifests/kube-controller-manager.yaml

# netfork::kind::first_ip prints the first address of a masked range, IPv4 or IPv6 (.1, ::1,
# or the last group 0 made 1: fd00::10:0/108 -> fd00::10:1).
netfork::kind::first_ip() {
  local base="${1%/*}"
  case "${base}" in
    *::) echo "${base}1" ;;
    *:*) echo "${base%:0}:1" ;;
    *) echo "${base%.*}.$((${base##*.} + 1))" ;;
  esac
}

# netfork::kind::serving_sans prints, one per line, the DNS names and IP addresses that node
# $1's apiserver serving certificate names.
netfork::kind::serving_sans() {
  docker exec "$1" cat /etc/kubernetes/pki/apiserver.crt |
    openssl x509 -noout -ext subjectAltName |
    sed -n '2,$p' | tr ',' '\n' | sed -e 's/^ *//' -e 's/^DNS://' -e 's/^IP Address://' | grep -v '^$'
}

# netfork::kind::issue_serving_cert has kubeadm issue node $1's apiserver a new serving
# certificate for the Service range $2 (CIDR[,CIDR], primary first) that names everything the
# old one did, the first address of each CIDR (where the apiservers put the kubernetes Service)
# and the addresses $3 (comma-separated, may be empty). The old certificate is kept in
# pki/netfork-previous and put back if kubeadm fails.
netfork::kind::issue_serving_cert() {
  local node="$1" cidrs="$2" extra="${3:-}" cidr sans version ip pki=/etc/kubernetes/pki list
  [[ "${cidrs}" =~ ^[0-9a-fA-F.:/]+(,[0-9a-fA-F.:/]+)?$ ]] || netfork::kind::die "${node}: ${cidrs}: want CIDR or CIDR,CIDR"
  sans="$(netfork::kind::serving_sans "${node}" | paste -sd, -)"
  [[ -n "${sans}" ]] || netfork::kind::die "${node}: cannot read the names in /etc/kubernetes/pki/apiserver.crt"
  IFS=, read -r -a list <<<"${cidrs}"
  for cidr in "${list[@]}"; do
    sans+=",$(netfork::kind::first_ip "${cidr}")"
  done
  [[ -z "${extra}" ]] || sans+=",${extra}"
  version="$(docker exec "${node}" kubeadm version -o short)"
  ip="$(netfork::kind::node_ips "${node}")"
  docker exec "${node}" sh -ec "
    mkdir -p ${pki}/netfork-previous
    mv ${pki}/apiserver.crt ${pki}/apiserver.key ${pki}/netfork-previous/
    if ! kubeadm init phase certs apiserver --cert-dir ${pki} --kubernetes-version ${version} \
        --apiserver-advertise-address ${ip%%,*} --service-cidr ${cidrs} --apiserver-cert-extra-sans '${sans}' >&2; then
      mv ${pki}/netfork-previous/apiserver.crt ${pki}/netfork-previous/apiserver.key ${pki}/
      exit 1
    fi" || netfork::kind::die "${node}: kubeadm could not issue the apiserver a certificate for ${cidrs}; the old one is back"
}

# netfork::kind::set_kcm_flags rewrites the kube-controller-manager flags $2... (--flag=value,
# each already in its manifest) on node $1 and waits for the new process; a rewrite that
# changes nothing restarts nothing.
netfork::kind::set_kcm_flags() {
  local node="$1" old script="" change
  shift
  for change in "$@"; do
    script+="s|^\\(    - ${change%%=*}=\\).*|\\1${change#*=}|;"
  done
  old="$(netfork::kind::process_pid "${node}" kube-controller-manager)"
  if netfork::kind::edit_manifest "${node}" "${KCM_MANIFEST}" "${script}"; then
    netfork::kind::wait_process "${node}" kube-controller-manager "${old}"
  fi
}

# netfork::kind::kcm_servicecidr_controller runs ($2=true) or stops ($2=false) upstream's
# service-cidr-controller in node $1's kube-controller-manager, by its --controllers
# (set_kcm_flags), and waits for its /healthz. That controller owns ServiceCIDRs (sets them
# Ready, releases deleted ones) only while no control plane runs netfork's apiserver, whose own
# controller does it otherwise (docs/kind.md).
netfork::kind::kcm_servicecidr_controller() {
  local node="$1" controllers="${NETFORK_KIND_KCM_CONTROLLERS}" start=${SECONDS}
  [[ "$2" == true ]] && controllers="${controllers%,-service-cidr-controller}"
  netfork::kind::set_kcm_flags "${node}" "--controllers=${controllers}"
  until docker exec "${node}" curl -fsk --max-time 2 https://127.0.0.1:10257/healthz >/dev/null 2>&1; do
    ((SECONDS - start < 180)) || netfork::kind::die "${node}: kube-controller-manager not healthy within 180s of --controllers=${controllers}"
    sleep 1
  done
  netfork::log "${node}: kube-controller-manager --controllers=${controllers}"
}

# netfork::kind::set_service_range rolls control-plane node $1 to the Service range $2
# (CIDR[,CIDR], primary first): a serving certificate that also names the kubernetes Service's
# address in $2, then kube-apiserver restarts with --service-cluster-ip-range=$2 and
# kube-controller-manager with the same flag.
netfork::kind::set_service_range() {
  netfork::kind::issue_serving_cert "$1" "$2"
  netfork::kind::set_apiserver "$1" "--service-cluster-ip-range=$2"
  netfork::kind::set_kcm_flags "$1" "--service-cluster-ip-range=$2"
}

# netfork::kind::wait_process waits until node $1 runs a process named $2 other than PID $3,
# for at most $4 seconds (default 120).
netfork::kind::wait_process() {
  local node="$1" name="$2" old="$3" limit="${4:-120}" start=${SECONDS} pid
  while ((SECONDS - start < limit)); do
    pid="$(netfork::kind::process_pid "${node}" "${name}")"
    [[ -n "${pid}" && "${pid}" != "${old}" ]] && return 0
    sleep 1
  done
  netfork::kind::die "${node}: ${name} did not restart within ${limit}s"
}

# netfork::kind::reload_kubelet_config rewrites node $1's kubelet configuration from kubeadm's
# kubelet-config ConfigMap (kubeadm upgrade node phase kubelet-config), which a renumber
# updates with the DNS Service's new address, restarts kubelet and waits for its /healthz.
netfork::kind::reload_kubelet_config() {
  docker exec "$1" kubeadm upgrade node phase kubelet-config >&2 ||
    netfork::kind::die "$1: kubeadm upgrade node phase kubelet-config failed"
  netfork::kind::restart_kubelet "$1"
}

# netfork::kind::restart_kubelet restarts node $1's kubelet and waits, at most 120 s, for its
# /healthz.
netfork::kind::restart_kubelet() {
  local node="$1" start=${SECONDS}
  docker exec "${node}" systemctl restart kubelet
  until docker exec "${node}" curl -fs --max-time 2 http://127.0.0.1:10248/healthz >/dev/null 2>&1; do
    ((SECONDS - start < 120)) || netfork::kind::die "${node}: kubelet not healthy within 120s of its restart"
    sleep 1
  done
}
