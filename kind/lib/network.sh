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

# network.sh contains a kind cluster: its own docker network (no masquerading), every address
# inside 198.18.0.0/15 and netfork's ULA fd6e:6574:666b::/48, and a firewall rule, added before
# any node starts and removed with the cluster, that rejects anything the cluster's bridge would
# forward anywhere but back into the same bridge (so nothing leaves for an address outside the
# cluster and off the host; traffic to the host itself is not forwarded).
# Sourced after common.sh.
#
# Cluster slot k (0-7, the first free one) owns:
#   nodes     198.18.(16+k).0/24     fd6e:6574:666b:1k::/64     bridge nfk-kind<k>
#   Services  198.18.(128+16k).0/21  fd6e:6574:666b:3k00::/108  (+8 /24s spare for new ServiceCIDRs)
#   Pods      198.19.(128+16k).0/20  fd6e:6574:666b:2k00::/56
#   bulk      198.19.(16+8k).0/21    a second IPv4 ServiceCIDR for make bench-kind above 4,000 Services
# None of these meets local-up's 198.18.0.0/24 or local-up-netns's 198.19.0.0/24 and
# fd6e:6574:666b::/64.

# netfork::kind::slot_vars sets the addresses of slot $1 in NETFORK_KIND_{NODE,SVC,POD}_V{4,6},
# NETFORK_KIND_SVC_BULK_V4 and NETFORK_KIND_BRIDGE.
# shellcheck disable=SC2034 # the slot's variables are read by the scripts that source this library
netfork::kind::slot_vars() {
  local k="$1"
  NETFORK_KIND_NODE_V4="198.18.$((16 + k)).0/24"
  NETFORK_KIND_NODE_V6="fd6e:6574:666b:1${k}::/64"
  NETFORK_KIND_SVC_V4="198.18.$((128 + 16 * k)).0/21"
  NETFORK_KIND_SVC_V6="fd6e:6574:666b:3${k}00::/108"
  NETFORK_KIND_POD_V4="198.19.$((128 + 16 * k)).0/20"
  NETFORK_KIND_POD_V6="fd6e:6574:666b:2${k}00::/56"
  NETFORK_KIND_SVC_BULK_V4="198.19.$((16 + 8 * k)).0/21"
  NETFORK_KIND_BRIDGE="nfk-kind${k}"
}

# netfork::kind::network_name names the docker network of cluster $1.
netfork::kind::network_name() {
  echo "netfork-kind-$1"
}

# netfork::kind::free_slot prints the first slot no docker network's subnet or bridge uses.
netfork::kind::free_slot() {
  local k used
  used="$(docker network ls -q | xargs -r docker network inspect \
    -f '{{range .IPAM.Config}}{{.Subnet}} {{end}}{{index .Options "com.docker.network.bridge.name"}}' 2>/dev/null)"
  for k in 0 1 2 3 4 5 6 7; do
    netfork::kind::slot_vars "${k}"
    if [[ " ${used//$'\n'/ } " != *" ${NETFORK_KIND_NODE_V4} "* && " ${used//$'\n'/ } " != *" ${NETFORK_KIND_BRIDGE} "* ]]; then
      echo "${k}"
      return 0
    fi
  done
  netfork::kind::die "all 8 netfork kind network slots are in use (docker network ls)"
}

# netfork::kind::firewall_rule prints the rule (without -I/-D) that keeps bridge $1's traffic in.
netfork::kind::firewall_rule() {
  echo "-i $1 ! -o $1 -m comment --comment netfork-kind-containment -j REJECT"
}

# netfork::kind::firewall_add installs the containment rule for bridge $1, IPv4 in DOCKER-USER
# (docker keeps that chain first in FORWARD and never flushes it), IPv6 first in FORWARD.
netfork::kind::firewall_add() {
  local rule chain=DOCKER-USER
  read -r -a rule <<<"$(netfork::kind::firewall_rule "$1")"
  iptables -n -L DOCKER-USER >/dev/null 2>&1 || chain=FORWARD
  netfork::run iptables -I "${chain}" 1 "${rule[@]}"
  if command -v ip6tables >/dev/null && ip6tables -n -L FORWARD >/dev/null 2>&1; then
    netfork::run ip6tables -I FORWARD 1 "${rule[@]}"
  fi
}

# netfork::kind::firewall_del removes every copy of bridge $1's containment rule.
netfork::kind::firewall_del() {
  local rule chain
  read -r -a rule <<<"$(netfork::kind::firewall_rule "$1")"
  for chain in DOCKER-USER FORWARD; do
    while iptables -D "${chain}" "${rule[@]}" 2>/dev/null; do :; done
  done
  while ip6tables -D FORWARD "${rule[@]}" 2>/dev/null; do :; done
}

# netfork::kind::network_create creates cluster $1's docker network in slot $2: dual-stack,
# docker's MTU, no masquerading, labelled with the cluster.
netfork::kind::network_create() {
  local name="$1" mtu opts=()
  netfork::kind::slot_vars "$2"
  mtu="$(docker network inspect bridge -f '{{index .Options "com.docker.network.driver.mtu"}}' 2>/dev/null || true)"
  [[ -n "${mtu}" ]] && opts+=(-o "com.docker.network.driver.mtu=${mtu}")
  netfork::run docker network create --driver bridge \
    --subnet "${NETFORK_KIND_NODE_V4}" --ipv6 --subnet "${NETFORK_KIND_NODE_V6}" \
    -o "com.docker.network.bridge.name=${NETFORK_KIND_BRIDGE}" \
    -o com.docker.network.bridge.enable_ip_masquerade=false "${opts[@]}" \
    --label "netfork.kind.cluster=${name}" --label "netfork.kind.slot=$2" \
    "$(netfork::kind::network_name "${name}")" >/dev/null
}

# netfork::kind::node_containment installs, in node $1, a forward rule ahead of kube-proxy's
# (priority filter - 10) that refuses whatever a pod sends to an address outside the cluster's
# node and Pod networks. Valid Service traffic is already DNATed to a node or pod address by
# then, so what it catches is traffic to unallocated ClusterIPs (kube-proxy's nftables mode
# only drops those, which looks like a timeout) and anything headed off the cluster. Slot vars
# must be set.
netfork::kind::node_containment() {
  docker exec -i "$1" nft -f - <<NFT
table inet netfork-containment
delete table inet netfork-containment
table inet netfork-containment {
  chain forward {
    type filter hook forward priority filter - 10; policy accept;
    meta nfproto ipv4 ip daddr != { ${NETFORK_KIND_NODE_V4}, ${NETFORK_KIND_POD_V4} } counter reject
    meta nfproto ipv6 ip6 daddr != { ${NETFORK_KIND_NODE_V6}, ${NETFORK_KIND_POD_V6}, fe80::/10 } counter reject
  }
}
NFT
}
