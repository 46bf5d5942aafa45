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

# loadbalancer.sh picks the load balancer kind runs in front of several control planes: the
# real Envoy image kind v0.33.0 names where it exists or can be pulled, else netfork's own
# (netfork/kind-lb, kind/node/cmd/envoy), which serves the configuration kind writes for
# Envoy. Sourced after build.sh.

# netfork::kind::envoy_image prints the Envoy image kind's load balancer uses.
netfork::kind::envoy_image() {
  sed -n 's/^const Image = "\(.*\)"/\1/p' "$(netfork::kind::kind_dir)/pkg/cluster/internal/loadbalancer/const.go"
}

# netfork::kind::lb_image_tag names netfork's load-balancer image.
netfork::kind::lb_image_tag() {
  echo "netfork/kind-lb:${KIND_VERSION}"
}

# netfork::kind::build_lb_image builds netfork's load-balancer image from the Debian rootfs
# (kind's bootstrap command needs bash) and the stand-in envoy binary.
netfork::kind::build_lb_image() {
  local ctx="${NETFORK_KIND_OUTPUT}/ctx/lb"
  rm -rf "${ctx}"
  mkdir -p "${ctx}/rootfs/usr/local/bin"
  cp "${NETFORK_KIND_BIN}/node/envoy" "${ctx}/rootfs/usr/local/bin/envoy"
  printf 'FROM %s\nCOPY rootfs/ /\nSTOPSIGNAL SIGTERM\n' "$(netfork::kind::debian_image)" >"${ctx}/Dockerfile"
  find "${ctx}" -exec touch -h -d @0 {} +
  docker build -q -t "$(netfork::kind::lb_image_tag)" "${ctx}" >/dev/null
}

# netfork::kind::loadbalancer_image prints the docker shim's image map for an HA cluster:
# "" when the real Envoy image is there (or pulls), else ENVOY_IMAGE=netfork/kind-lb:<v>.
netfork::kind::loadbalancer_image() {
  local envoy
  envoy="$(netfork::kind::envoy_image)"
  if docker image inspect "${envoy}" >/dev/null 2>&1 || timeout 60 docker pull "${envoy}" >/dev/null 2>&1; then
    netfork::log "load balancer: ${envoy}"
    return 0
  fi
  docker image inspect "$(netfork::kind::lb_image_tag)" >/dev/null 2>&1 ||
    netfork::kind::die "${envoy} cannot be pulled and $(netfork::kind::lb_image_tag) does not exist: run make kind-image"
  netfork::log "load balancer: ${envoy} cannot be pulled; using netfork's $(netfork::kind::lb_image_tag) in its place"
  echo "${envoy}=$(netfork::kind::lb_image_tag)"
}
