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

# node.sh assembles the node image the way kind's node-image builder does (pkg/build/nodeimage):
# a build container from the base image, kubeadm/kubelet/kubectl in /usr/bin, /kind/version,
# kind's default CNI and storage manifests, every image imported into containerd's k8s.io
# namespace (pinned, not unpacked), then docker commit. It does so in two commits, so that a
# netfork-only change re-does only the second: netfork/kind-node-prep:<hash of its inputs>
# holds everything but netfork's kube-apiserver image. Sourced after images.sh.

# netfork::kind::kind_const prints one Go string constant of kind's node-image builder, with
# the image constants it concatenates substituted, read from kind's module at build time.
#   $1 constant name (defaultCNIManifest, defaultStorageManifest, kindnetdImage, ...)
netfork::kind::kind_const() {
  local dir
  dir="$(netfork::kind::kind_dir)/pkg/build/nodeimage"
  awk -v name="$1" '
    # Simple constants first: name = "value".
    FNR == 1 { file++ }
    $1 == "const" && $3 == "=" && $4 ~ /^"/ { v = $4; gsub(/"/, "", v); simple[$2] = v }
    { lines[file, FNR] = $0; count[file] = FNR }
    END {
      if (name in simple) { print simple[name]; exit }
      for (f = 1; f <= file; f++) {
        inside = 0
        for (i = 1; i <= count[f]; i++) {
          line = lines[f, i]
          if (!inside && line ~ "^const " name " = `") { inside = 1; sub("^const " name " = `", "", line) }
          else if (!inside) continue
          else if (line == "`") { exit }
          while (match(line, /` \+ [A-Za-z]+ \+ `/)) {
            ref = substr(line, RSTART + 4, RLENGTH - 8)
            line = substr(line, 1, RSTART - 1) simple[ref] substr(line, RSTART + RLENGTH)
          }
          print line
        }
      }
    }' "${dir}"/const*.go
}

# netfork::kind::build_container starts a build container from an image (no privileges, as
# kind's builder) and prints its name; the caller removes it.
netfork::kind::build_container() {
  local name="netfork-kind-build-$$-${RANDOM}"
  docker run -d --name "${name}" --entrypoint=sleep --security-opt seccomp=unconfined "$1" infinity >/dev/null
  echo "${name}"
}

# netfork::kind::import_archives starts containerd in a build container, imports archives into
# its k8s.io namespace as kind's builder does, and stops it again.
#   $1 container  $2.. archives
netfork::kind::import_archives() {
  local c="$1" archive
  shift
  docker exec "${c}" bash -c 'nohup containerd >/tmp/containerd.log 2>&1 &'
  docker exec "${c}" bash -c 'for i in $(seq 50); do [ -S /run/containerd/containerd.sock ] && ctr version >/dev/null 2>&1 && exit 0; sleep 0.2; done; cat /tmp/containerd.log; exit 1' >&2
  for archive in "$@"; do
    docker exec -i "${c}" ctr --namespace=k8s.io images import --label=io.cri-containerd.pinned=pinned \
      --all-platforms --no-unpack --digests - <"${archive}" >/dev/null
  done
  # The build container's PID 1 (sleep) never reaps, so an exited containerd stays a zombie.
  docker exec "${c}" bash -c 'pkill -x containerd; for i in $(seq 100); do
    live=0; for p in $(pgrep -x containerd); do grep -q "^State:[[:space:]]*Z" "/proc/$p/status" || live=1; done
    [ "$live" = 0 ] && exit 0; sleep 0.2; done; echo "containerd did not stop" >&2; exit 1'
  docker exec "${c}" rm -f /tmp/containerd.log
}

# netfork::kind::commit commits a build container as an image with kind's entrypoint.
netfork::kind::commit() {
  docker commit --change 'ENTRYPOINT [ "/usr/local/bin/entrypoint", "/sbin/init" ]' "$1" "$2" >/dev/null
}

# netfork::kind::prep_image builds (or finds) the node image without netfork's apiserver and
# sets NETFORK_KIND_PREP_IMAGE to it (not printed: the cleanup list must stay in this shell).
#   $1 base image  $2.. archives to pre-load
netfork::kind::prep_image() {
  local base="$1" key tag c bin
  shift
  key="$( {
    docker image inspect -f '{{.Id}}' "${base}"
    sha256sum "${NETFORK_KIND_BIN}"/node/{kubeadm,kubelet,kubectl} | cut -d' ' -f1
    cat "${@/%/.id}"
    netfork::kind::kind_const defaultCNIManifest
    netfork::kind::kind_const defaultStorageManifest
    echo "${K8S_VERSION}"
  } | sha256sum | cut -c1-16)"
  tag="netfork/kind-node-prep:${key}"
  # shellcheck disable=SC2034 # read by image.sh, which sources this library
  NETFORK_KIND_PREP_IMAGE="${tag}"
  if docker image inspect "${tag}" >/dev/null 2>&1; then
    netfork::log "node image layers ${tag} exist"
    return 0
  fi
  netfork::log "building ${tag}"
  c="$(netfork::kind::build_container "${base}")"
  NETFORK_KIND_CLEANUP+=("docker rm -f -v ${c}")
  for bin in kubeadm kubelet kubectl; do
    docker cp "${NETFORK_KIND_BIN}/node/${bin}" "${c}:/usr/bin/${bin}"
    docker exec "${c}" chown root:root "/usr/bin/${bin}"
    docker exec "${c}" chmod 0755 "/usr/bin/${bin}"
  done
  docker exec "${c}" mkdir -p /kind/manifests
  echo -n "${K8S_VERSION}" | docker exec -i "${c}" tee /kind/version >/dev/null
  netfork::kind::kind_const defaultCNIManifest | docker exec -i "${c}" tee /kind/manifests/default-cni.yaml >/dev/null
  netfork::kind::kind_const defaultStorageManifest | docker exec -i "${c}" tee /kind/manifests/default-storage.yaml >/dev/null
  netfork::kind::import_archives "${c}" "$@"
  netfork::kind::commit "${c}" "${tag}"
  docker rm -f -v "${c}" >/dev/null
}

# netfork::kind::node_image adds netfork's apiserver archive to the prep image and commits the
# result as the node image.
#   $1 prep image  $2 node image tag  $3 apiserver archive
netfork::kind::node_image() {
  local c
  c="$(netfork::kind::build_container "$1")"
  NETFORK_KIND_CLEANUP+=("docker rm -f -v ${c}")
  netfork::kind::import_archives "${c}" "$3"
  netfork::kind::commit "${c}" "$2"
  docker rm -f -v "${c}" >/dev/null
}
