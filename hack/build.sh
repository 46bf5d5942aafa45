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

# build.sh builds netfork's commands into _output/bin with the version stamped in, so that
# `kube-apiserver --version` and /version report the upstream release netfork is built on.
# WHAT="cmd/local-up" builds only the listed command directories (space-separated);
# NETFORK_BIN_DIR writes them elsewhere than _output/bin (the kind image's stripped apiserver
# does, so that the two builds never overwrite each other's binary and relink it each time).
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
source "${NETFORK_ROOT}/hack/lib/version.sh"

read -r -a what <<<"${WHAT:-cmd/kube-apiserver cmd/local-up cmd/kubectl-servicecidr}"
pkgs=()
for dir in "${what[@]}"; do
  dir="${dir#./}"
  dir="${dir%/}"
  if ! compgen -G "${dir}/*.go" >/dev/null; then
    netfork::log "${dir}: no Go command there to build"
    exit 1
  fi
  pkgs+=("./${dir}")
done

netfork::version::get_vars
netfork::log "version ${NETFORK_GIT_VERSION}, commit ${NETFORK_GIT_COMMIT:-unknown} (${NETFORK_GIT_TREE_STATE:-unknown})"
bin_dir="${NETFORK_BIN_DIR:-${NETFORK_OUTPUT}/bin}"
mkdir -p "${bin_dir}"
# The trailing slash makes go build write one binary per package, named after its directory.
netfork::run go build -o "${bin_dir}/" \
  -ldflags "$(netfork::version::ldflags)${GOLDFLAGS:+ ${GOLDFLAGS}}" "${pkgs[@]}"
for pkg in "${pkgs[@]}"; do
  netfork::log "built ${bin_dir#"${NETFORK_ROOT}/"}/$(basename "${pkg}")"
done
