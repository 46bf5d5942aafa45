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

# e2e.sh builds upstream's e2e binary, the ginkgo CLI and the test images upstream's specs run,
# with no registry, loads the images into a cluster's nodes and runs ginkgo so that a signal
# interrupts it at once. Shared by e2e-upstream.sh and conformance.sh. Sourced after
# common.sh, build.sh, base.sh and images.sh.

# NETFORK_KIND_E2E_BIN holds e2e.test, ginkgo and the test images' programs.
NETFORK_KIND_E2E_BIN="${NETFORK_KIND_BIN}/e2e"

# netfork::kind::build_e2e builds upstream's e2e.test (go test -c k8s.io/kubernetes/test/e2e),
# the ginkgo CLI, agnhost, nonewprivs' nnp, regression-issue-74839 and the sample-apiserver of
# the staging version the e2e test links, in a copy of kind/node's module (same pins),
# since go mod tidy keeps the e2e test's own dependencies out of that module's go.sum; and
# netfork's kind/registry. They are built as the node binaries are (cgo on, no -trimpath), so
# that of e2e.test's 2,100 packages only the 160 the node binaries lack are compiled again;
# the images that carry them are Debian's.
netfork::kind::build_e2e() {
  local mod="${NETFORK_KIND_OUTPUT}/e2e-module" b="${NETFORK_KIND_E2E_BIN}" ldflags
  mkdir -p "${mod}" "${b}"
  cp "${NETFORK_KIND_NODE_MODULE}/go.mod" "${NETFORK_KIND_NODE_MODULE}/go.sum" "${mod}/"
  ldflags="$(netfork::kind::upstream_ldflags)"
  (cd "${mod}" && GOFLAGS=-mod=mod netfork::kind::warm_if "${b}/e2e.test" \
    netfork::kind::heavy go test -c -vet=off -o "${b}/e2e.test" -ldflags "${ldflags}" k8s.io/kubernetes/test/e2e)
  (cd "${mod}" && GOFLAGS=-mod=mod netfork::kind::warm_if "${b}/sample-apiserver" \
    netfork::kind::heavy go build -o "${b}/" -ldflags "${ldflags}" github.com/onsi/ginkgo/v2/ginkgo \
    k8s.io/kubernetes/test/images/agnhost k8s.io/kubernetes/test/images/nonewprivs \
    k8s.io/kubernetes/test/images/regression-issue-74839 k8s.io/sample-apiserver)
  netfork::run env CGO_ENABLED=0 go build -o "${b}/registry" "${NETFORK_ROOT}/kind/registry"
  "${b}/e2e.test" --list-images >"${b}/images.txt" 2>/dev/null ||
    netfork::kind::die "${b}/e2e.test --list-images failed"
}

# netfork::kind::e2e_tags prints, on one line, every image e2e.test names under
# registry.k8s.io/$1 (e.g. e2e-test-images/agnhost: v1.37.2 lists 2.55 and 2.66.1), and fails
# when it names none, so a renamed image stops the build instead of a spec much later.
netfork::kind::e2e_tags() {
  local tags
  tags="$(grep -E "^registry\.k8s\.io/$1:" "${NETFORK_KIND_E2E_BIN}/images.txt" | tr '\n' ' ' | sed 's/ $//' || true)"
  [[ -n "${tags}" ]] || netfork::kind::die "e2e.test --list-images names no registry.k8s.io/$1 image"
  echo "${tags}"
}

# NETFORK_KIND_E2E_ARCHIVES lists the image archives the last netfork::kind::*_images call wrote.
NETFORK_KIND_E2E_ARCHIVES=()

# netfork::kind::e2e_images writes the archives of the images most specs run: agnhost (both tags)
# on Debian with what upstream's Alpine base adds, porter's /localhost.crt and .key (the
# StatefulSet specs' readiness probe fetches the .crt from test-webserver) and netfork's CoreDNS
# as /coredns (upstream's carries a CoreDNS release, which the DNS specs run with a "hosts"
# Corefile), and the stand-ins for nginx (agnhost netexec on port 80) and busybox (Debian
# with busybox's applets in /bin, where upstream's busybox image has them: the sysctl spec
# runs /bin/sysctl). In agnhost and busybox, as in upstream's, /bin/sh is busybox's ash (the
# read-only root spec expects its "/bin/sh: can't create /file: ..."), but "sh" on PATH is
# bash: Debian's busybox ash, like dash, drops environment variables whose names are not
# shell identifiers (data-1), which upstream's ash passes on, and the envFrom specs run
# "sh -c env" to read them.
netfork::kind::e2e_images() {
  local b="${NETFORK_KIND_E2E_BIN}" name porter shells
  porter="$(netfork::kind::module_dir k8s.io/kubernetes "${K8S_VERSION}")/test/images/agnhost/porter"
  # busybox's applets in /bin, /bin/sh busybox's ash, bash first on PATH as sh (see above)
  # shellcheck disable=SC2016 # a RUN line for the image's shell, which expands it at build time
  shells='for a in $(busybox --list); do [ -e "/bin/$a" ] || ln -s busybox "/bin/$a"; done && ln -sf busybox /bin/sh && ln -s /bin/bash /usr/local/bin/sh'
  NETFORK_KIND_IMAGE_RUN="useradd -u 1000 user-defined-in-image && groupadd -g 50000 group-defined-in-image && usermod -aG group-defined-in-image user-defined-in-image && mkdir -p /uploads && ln -s /agnhost /agnhost-2 && ${shells}" \
    NETFORK_KIND_IMAGE_CMD='["pause"]' \
    netfork::kind::component_image e2e-agnhost debian-e2e '["/agnhost"]' \
    "$(netfork::kind::e2e_tags e2e-test-images/agnhost)" "${b}/agnhost:/agnhost" \
    "${porter}/localhost.crt:/localhost.crt" "${porter}/localhost.key:/localhost.key" \
    "${NETFORK_KIND_BIN}/addons/coredns:/coredns"
  NETFORK_KIND_IMAGE_CMD='["netexec", "--http-port=80"]' \
    netfork::kind::component_image e2e-nginx debian-e2e '["/agnhost"]' \
    "$(netfork::kind::e2e_tags e2e-test-images/nginx)" "${b}/agnhost:/agnhost"
  NETFORK_KIND_IMAGE_RUN="${shells}" \
    NETFORK_KIND_IMAGE_CMD='["sh"]' \
    netfork::kind::component_image e2e-busybox debian-e2e '' "$(netfork::kind::e2e_tags e2e-test-images/busybox)"
  NETFORK_KIND_E2E_ARCHIVES=()
  for name in e2e-agnhost e2e-nginx e2e-busybox; do
    NETFORK_KIND_E2E_ARCHIVES+=("${NETFORK_KIND_IMAGES}/${name}.tar")
  done
}

# netfork::kind::conformance_images writes, after netfork::kind::e2e_images' archives, those
# of every other image the [Conformance] specs run, each from its source in the module cache
# (test/images/<name>): kitten and nautilus (agnhost's test-webserver serving their html
# files), nonewprivs (nnp, setuid), nonroot (Debian as user 1234), glibc-dns-testing (Debian
# with dig), sample-apiserver (k8s.io/sample-apiserver), and etcd and pause from the node's
# own binaries where e2e.test names a tag kubeadm does not; and two that sig-network specs run:
# regression-issue-74839 (on Debian, as upstream's) and build-image/distroless-iptables
# (Debian with the node's iptables and conntrack, and a shell, which the spec execs in it).
netfork::kind::conformance_images() {
  local b="${NETFORK_KIND_E2E_BIN}" src name image
  netfork::kind::e2e_images
  src="$(netfork::kind::module_dir k8s.io/kubernetes "${K8S_VERSION}")/test/images"
  for name in kitten nautilus; do
    NETFORK_KIND_IMAGE_CMD='["test-webserver"]' \
      netfork::kind::component_image "e2e-${name}" netfork/kind-img-e2e-agnhost:latest '' \
      "$(netfork::kind::e2e_tags "e2e-test-images/${name}")" \
      "${src}/${name}/html/${name}.jpg:/${name}.jpg" "${src}/${name}/html/data.json:/data.json"
  done
  NETFORK_KIND_IMAGE_RUN='chmod +s /usr/local/bin/nnp' NETFORK_KIND_IMAGE_CMD='["nnp"]' \
    netfork::kind::component_image e2e-nonewprivs debian '' \
    "$(netfork::kind::e2e_tags e2e-test-images/nonewprivs)" "${b}/nonewprivs:/usr/local/bin/nnp"
  NETFORK_KIND_IMAGE_USER=1234 \
    netfork::kind::component_image e2e-nonroot debian '' "$(netfork::kind::e2e_tags e2e-test-images/nonroot)"
  netfork::kind::component_image e2e-glibc-dns-testing debian-e2e '' \
    "$(netfork::kind::e2e_tags e2e-test-images/glibc-dns-testing)"
  netfork::kind::component_image e2e-sample-apiserver debian '["/sample-apiserver"]' \
    "$(netfork::kind::e2e_tags e2e-test-images/sample-apiserver)" "${b}/sample-apiserver:/sample-apiserver"
  netfork::kind::component_image e2e-regression-issue-74839 debian '["/regression-issue-74839"]' \
    "$(netfork::kind::e2e_tags e2e-test-images/regression-issue-74839)" \
    "${b}/regression-issue-74839:/regression-issue-74839"
  netfork::kind::component_image e2e-distroless-iptables debian '' \
    "$(netfork::kind::e2e_tags build-image/distroless-iptables)"
  for name in e2e-kitten e2e-nautilus e2e-nonewprivs e2e-nonroot e2e-glibc-dns-testing e2e-sample-apiserver \
    e2e-regression-issue-74839 e2e-distroless-iptables; do
    NETFORK_KIND_E2E_ARCHIVES+=("${NETFORK_KIND_IMAGES}/${name}.tar")
  done
  for name in etcd pause; do
    image="$(netfork::kind::e2e_tags "${name}")"
    netfork::kind::kubeadm_images | grep -qxF "${image}" && continue
    netfork::kind::component_image "e2e-${name}" scratch "[\"/usr/local/bin/${name}\"]" "${image}" \
      "$(netfork::kind::node_binary "${name}"):/usr/local/bin/${name}"
    NETFORK_KIND_E2E_ARCHIVES+=("${NETFORK_KIND_IMAGES}/e2e-${name}.tar")
  done
}

# netfork::kind::node_binary prints where the node image's etcd or pause binary was built.
netfork::kind::node_binary() {
  case "$1" in
    etcd) echo "${NETFORK_KIND_BIN}/node/etcd" ;;
    pause) echo "${NETFORK_KIND_BIN}/addons/pause" ;;
  esac
}

# NETFORK_KIND_IMPORTED is the file in a node that records the images netfork::kind::load_images
# imported into it, a line "<config digest> <reference>" each.
NETFORK_KIND_IMPORTED=/var/lib/netfork/imported-images

# netfork::kind::archive_images prints a line "<config digest> <reference>" for each tag of each
# image in docker-save archive $1, the reference as containerd names it (docker.io/library/ before
# a bare name, docker.io/ before a name without a registry).
netfork::kind::archive_images() {
  tar -xOf "$1" manifest.json | jq -r '
    def ref: split("/") as $p
      | if ($p | length) == 1 then "docker.io/library/" + .
        elif ($p[0] | test("[.:]")) or $p[0] == "localhost" then .
        else "docker.io/" + . end;
    .[] | (.Config | sub("^blobs/sha256/"; "") | sub("[.]json$"; "")) as $config
      | .RepoTags[]? | "sha256:\($config) \(ref)"'
}

# netfork::kind::holds_images reports whether a node holds every image of lines $1 (as
# archive_images prints them): each line is in its record $2 (NETFORK_KIND_IMPORTED) and each
# reference among its images $3 (ctr images ls -q). An archive with no tagged image is never held.
netfork::kind::holds_images() {
  local line
  [[ -n "$1" ]] || return 1
  while IFS= read -r line; do
    grep -qFx -- "${line}" <<<"$2" && grep -qFx -- "${line#* }" <<<"$3" || return 1
  done <<<"$1"
}

# netfork::kind::load_images imports image archives into every node of cluster $1, pinned
# (load_archive) so that kubelet's image garbage collection never removes them: nothing could
# pull them back. An archive whose images a node already holds, by the record of earlier
# imports in the node (NETFORK_KIND_IMPORTED) and the node's own image list, is not imported
# again: a run on a reused cluster (conformance.sh --cluster) loads only what changed.
netfork::kind::load_images() {
  local name="$1" node archive imported images skipped
  shift
  local -A want=()
  for archive in "$@"; do
    want["${archive}"]="$(netfork::kind::archive_images "${archive}")"
  done
  for node in $(docker ps --filter "label=io.x-k8s.kind.cluster=${name}" --filter "label=io.x-k8s.kind.role" --format '{{.Names}}'); do
    [[ "$(docker inspect -f '{{index .Config.Labels "io.x-k8s.kind.role"}}' "${node}")" == external-load-balancer ]] && continue
    imported="$(docker exec "${node}" cat "${NETFORK_KIND_IMPORTED}" 2>/dev/null || true)"
    images="$(docker exec "${node}" ctr -n k8s.io images ls -q)"
    skipped=0
    for archive in "$@"; do
      if netfork::kind::holds_images "${want[${archive}]}" "${imported}" "${images}"; then
        skipped=$((skipped + 1))
        continue
      fi
      netfork::kind::load_archive "${node}" "${archive}"
      [[ -z "${want[${archive}]}" ]] ||
        docker exec -i "${node}" sh -c "mkdir -p '${NETFORK_KIND_IMPORTED%/*}' && cat >>'${NETFORK_KIND_IMPORTED}'" <<<"${want[${archive}]}"
    done
    netfork::log "${node}: imported $(($# - skipped)) image archives, $((skipped)) already there"
  done
}

# netfork::kind::start_registry serves the image archives $2... to the nodes of cluster $1 as
# registry.k8s.io: kind/registry in a container on the cluster's docker network (labelled
# netfork.kind.cluster=$1, so down.sh removes it with the cluster), and in every node a
# registry.k8s.io hosts.toml that makes it containerd's mirror (containerd reads
# /etc/containerd/certs.d, netfork::kind::config). A spec's imagePullPolicy Always then pulls
# the image the node already holds from inside the cluster's network. A name it does not serve
# falls through to registry.k8s.io itself, which every node resolves to loopback, so such a
# pull fails at once, connection refused, instead of after ~50 s on a DNS lookup nothing
# answers. While a pull is in flight kubelet must pull that image for every other pod on the
# node too (its pull intent makes the image count as kubelet-pulled, with no record of
# credentials), so one slow failing pull failed unrelated specs that share the image.
netfork::kind::start_registry() {
  local name="$1" c="$1-registry" archive ip node i
  shift
  local args=(--listen :5000)
  for archive in "$@"; do
    [[ "$(dirname "${archive}")" == "${NETFORK_KIND_IMAGES}" ]] ||
      netfork::kind::die "start_registry: ${archive} is not in ${NETFORK_KIND_IMAGES}"
    args+=("/images/$(basename "${archive}")")
  done
  # an earlier run on the same cluster (conformance.sh --cluster) left its registry: replace it
  if [[ "$(docker inspect -f '{{index .Config.Labels "netfork.kind.cluster"}}' "${c}" 2>/dev/null)" == "${name}" ]]; then
    docker rm -f "${c}" >/dev/null
  fi
  netfork::run docker run -d --name "${c}" --label "netfork.kind.cluster=${name}" \
    --network "$(netfork::kind::network_name "${name}")" \
    -v "${NETFORK_KIND_E2E_BIN}/registry:/usr/local/bin/registry:ro" -v "${NETFORK_KIND_IMAGES}:/images:ro" \
    --entrypoint /usr/local/bin/registry "$(netfork::kind::debian_image)" "${args[@]}" >/dev/null
  ip="$(docker inspect -f '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}' "${c}")"
  for node in $(netfork::kind::nodes "${name}" control-plane) $(netfork::kind::nodes "${name}" worker); do
    docker exec "${node}" sh -c 'grep -q "registry\.k8s\.io" /etc/hosts || printf "127.0.0.1\tregistry.k8s.io\n::1\tregistry.k8s.io\n" >>/etc/hosts' ||
      netfork::kind::die "could not point registry.k8s.io at loopback in ${node}"
    for ((i = 0; ; i++)); do
      docker exec "${node}" curl -fsS --max-time 2 -o /dev/null "http://${ip}:5000/v2/" 2>/dev/null && break
      if ((i >= 60)) || [[ "$(docker inspect -f '{{.State.Running}}' "${c}")" != true ]]; then
        netfork::kind::die "the registry ${c} did not answer ${node} on ${ip}:5000: $(docker logs "${c}" 2>&1 | tail -n 1)"
      fi
      sleep 1
    done
    docker exec -i "${node}" sh -c 'mkdir -p /etc/containerd/certs.d/registry.k8s.io &&
      cat >/etc/containerd/certs.d/registry.k8s.io/hosts.toml' <<TOML ||
server = "https://registry.k8s.io"
[host."http://${ip}:5000"]
  capabilities = ["pull", "resolve"]
TOML
      netfork::kind::die "could not make ${c} the registry.k8s.io mirror of ${node}"
  done
  netfork::log "registry ${c} on ${ip}:5000: $(docker logs "${c}" 2>&1 | tail -n 1 | cut -c1-200)"
}

# netfork::kind::schedulable_nodes prints how many nodes of cluster $1 take ordinary pods (no
# NoSchedule taint), for e2e.test's --num-nodes. Without that flag only the first ginkgo
# process counts the nodes (in SynchronizedBeforeSuite); in the others the count stays -1, so a
# spec that needs two nodes is skipped or not depending on the process it lands on.
netfork::kind::schedulable_nodes() {
  "${NETFORK_KIND_BIN}/node/kubectl" --kubeconfig="${NETFORK_KIND_CLUSTERS}/$1/kubeconfig" get nodes -o json |
    jq '[.items[] | select([.spec.taints[]?.effect] | index("NoSchedule") | not)] | length' ||
    netfork::kind::die "could not count the schedulable nodes of $1"
}

# netfork::kind::ginkgo runs the ginkgo CLI with its output in log file $1, in the background
# so that a SIGTERM to the script (not only a terminal's Ctrl-C, which reaches ginkgo too)
# interrupts it at once, and returns ginkgo's exit code. The caller's INT/TERM trap is reset
# to "exit 130" afterwards, so its EXIT trap still deletes the cluster.
netfork::kind::ginkgo() {
  local log="$1" pid status=0
  shift
  echo "+ ginkgo $* (log: ${log#"${NETFORK_ROOT}/"})" | cut -c1-400 >&2
  "${NETFORK_KIND_E2E_BIN}/ginkgo" "$@" >"${log}" 2>&1 &
  pid=$!
  # shellcheck disable=SC2064 # expand now: the PID is fixed
  trap "kill -TERM ${pid} 2>/dev/null; wait ${pid}; exit 130" INT TERM
  tail -n +1 --pid="${pid}" -f "${log}" >&2 &
  wait "${pid}" || status=$?
  trap 'exit 130' INT TERM
  return "${status}"
}
