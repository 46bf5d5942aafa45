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

# dockerfix.sh works around a docker that cannot start --privileged containers because its
# own capability bounding set lacks CAP_SYS_RESOURCE (docker inside a container): it registers
# runc-nosysresource (kind/node/cmd/runc-nosysresource) as the extra runtime netfork-runc
# and puts a docker shim first on kind's PATH that adds --runtime=netfork-runc to kind's
# `docker run`. Only where the failure is seen; sourced after build.sh.

# NETFORK_RUNTIME_NAME and NETFORK_RUNTIME_PATH are what stays in the docker daemon's
# configuration: one entry under "runtimes" naming one binary (docs/kind.md, "Docker inside a container without CAP_SYS_RESOURCE").
NETFORK_RUNTIME_NAME=netfork-runc
NETFORK_RUNTIME_PATH=/usr/local/libexec/netfork/runc-nosysresource
DOCKER_DAEMON_JSON="${DOCKER_DAEMON_JSON:-/etc/docker/daemon.json}"
# NETFORK_KIND_RUNTIME is the runtime kind's nodes need ("" for docker's default).
NETFORK_KIND_RUNTIME=""

# netfork::kind::privileged_error prints why a privileged container fails to start with image
# $1 (and runtime $2, if given), or nothing when it starts.
netfork::kind::privileged_error() {
  local out args=(--rm --privileged --network none --entrypoint /bin/true)
  [[ -n "${2:-}" ]] && args+=(--runtime "$2")
  if ! out="$(docker run "${args[@]}" "$1" 2>&1)"; then
    echo "${out//$'\n'/ }"
  fi
}

# netfork::kind::ensure_runtime decides NETFORK_KIND_RUNTIME for image $1, registering the
# wrapper runtime with dockerd when, and only when, privileged containers fail on caps.
netfork::kind::ensure_runtime() {
  local image="$1" err
  err="$(netfork::kind::privileged_error "${image}")"
  if [[ -z "${err}" ]]; then
    return 0
  fi
  if [[ "${err}" != *"apply caps"* ]]; then
    netfork::kind::die "docker cannot start a privileged container from ${image}: ${err}"
  fi
  if ! docker info -f '{{json .Runtimes}}' | grep -q "\"${NETFORK_RUNTIME_NAME}\""; then
    [[ "$(id -u)" -eq 0 ]] || netfork::kind::die "docker cannot start privileged containers here (CAP_SYS_RESOURCE missing) and registering the ${NETFORK_RUNTIME_NAME} runtime needs root"
    netfork::kind::install_runtime
  fi
  err="$(netfork::kind::privileged_error "${image}" "${NETFORK_RUNTIME_NAME}")"
  [[ -z "${err}" ]] || netfork::kind::die "privileged containers fail even with the ${NETFORK_RUNTIME_NAME} runtime: ${err}"
  netfork::log "docker cannot apply CAP_SYS_RESOURCE to privileged containers here; kind's nodes run with the runtime ${NETFORK_RUNTIME_NAME} (drops that one capability)"
  NETFORK_KIND_RUNTIME="${NETFORK_RUNTIME_NAME}"
}

# netfork::kind::install_runtime installs the wrapper binary and adds it to daemon.json's
# runtimes, then reloads dockerd with SIGHUP (runtimes reload live, no restart).
netfork::kind::install_runtime() {
  local pid tmp
  CGO_ENABLED=0 go build -C "${NETFORK_KIND_NODE_MODULE}" -trimpath -o "${NETFORK_KIND_BIN}/runc-nosysresource" ./cmd/runc-nosysresource
  install -D -m 0755 "${NETFORK_KIND_BIN}/runc-nosysresource" "${NETFORK_RUNTIME_PATH}"
  mkdir -p "$(dirname "${DOCKER_DAEMON_JSON}")"
  [[ -s "${DOCKER_DAEMON_JSON}" ]] || echo '{}' >"${DOCKER_DAEMON_JSON}"
  tmp="$(mktemp "${DOCKER_DAEMON_JSON}.XXXXXX")"
  jq --arg name "${NETFORK_RUNTIME_NAME}" --arg path "${NETFORK_RUNTIME_PATH}" \
    '.runtimes[$name] = {path: $path}' "${DOCKER_DAEMON_JSON}" >"${tmp}"
  chmod --reference="${DOCKER_DAEMON_JSON}" "${tmp}"
  mv "${tmp}" "${DOCKER_DAEMON_JSON}"
  pid="$(pidof dockerd || true)"
  [[ -n "${pid}" ]] || netfork::kind::die "added ${NETFORK_RUNTIME_NAME} to ${DOCKER_DAEMON_JSON} but found no dockerd to reload"
  netfork::log "registered runtime ${NETFORK_RUNTIME_NAME} in ${DOCKER_DAEMON_JSON}; reloading dockerd (SIGHUP)"
  kill -HUP "${pid}"
  for _ in $(seq 50); do
    docker info -f '{{json .Runtimes}}' | grep -q "\"${NETFORK_RUNTIME_NAME}\"" && return 0
    sleep 0.2
  done
  netfork::kind::die "dockerd did not pick up the ${NETFORK_RUNTIME_NAME} runtime after SIGHUP"
}

# netfork::kind::docker_shim writes a docker wrapper into $1 that kind finds first on PATH: it
# adds --runtime=NETFORK_KIND_RUNTIME (if set) to kind's `docker run`, and where $2 is set
# ("KIND_IMAGE=LOCAL_IMAGE") it replaces that image argument, so kind runs netfork's load
# balancer under the name of the Envoy image it asks for without that name ever being tagged.
netfork::kind::docker_shim() {
  local dir="$1" map="${2:-}" real
  real="$(command -v docker)"
  mkdir -p "${dir}"
  cat >"${dir}/docker" <<SHIM
#!/usr/bin/env bash
# Written by kind/lib/dockerfix.sh for kind: runtime "${NETFORK_KIND_RUNTIME}", image map "${map}".
args=()
privileged=false
for arg in "\$@"; do
  [[ "\${arg}" == --privileged ]] && privileged=true
  if [[ -n "${map}" && "\${arg}" == "${map%%=*}" ]]; then
    arg="${map#*=}"
  fi
  args+=("\${arg}")
done
# Every container kind runs gets it: kind also runs "docker exec --privileged" in its load balancer.
if [[ "\$1" == run && -n "${NETFORK_KIND_RUNTIME}" ]]; then
  exec "${real}" run --runtime=${NETFORK_KIND_RUNTIME} "\${args[@]:1}"
fi
exec "${real}" "\${args[@]}"
SHIM
  chmod 0755 "${dir}/docker"
}
