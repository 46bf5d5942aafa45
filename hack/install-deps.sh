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

# install-deps.sh installs the Debian packages that the named groups of targets need and
# that are missing, so every make target works on a fresh Debian machine with Go and docker:
#   ci      what .ci/run needs around its steps (make)
#   test    make test: go test -race needs cgo, so a C compiler and libc headers (gcc,
#           libc6-dev); without them Go turns cgo off and -race stops
#   verify  make verify (shellcheck)
#   kind    the kind path: node image, clusters and their firewall rule (debootstrap for
#           the Debian rootfs; jq for image archives and daemon.json; gcc and libc6-dev for
#           cgo and the static pause binary; pkgconf and libseccomp-dev for runc's seccomp;
#           iptables for the containment rule; openssl reads a node's serving certificate
#           when a test rolls its Service range)
#   netns   network-namespace hosts for make test-netns (iproute2)
# Usage: hack/install-deps.sh GROUP... It runs apt-get (through sudo when not root) only when
# something is missing, and apt-get update once, first.
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"

# packages_of prints the Debian packages of one group, each with the command or file that
# shows it is installed ("package:probe"; a probe starting with / is a path).
packages_of() {
  case "$1" in
    ci) echo make:make ;;
    test) echo gcc:gcc libc6-dev:/usr/include/stdio.h ;;
    verify) echo shellcheck:shellcheck ;;
    kind)
      echo debootstrap:debootstrap jq:jq gcc:gcc libc6-dev:/usr/include/stdio.h \
        pkgconf:pkg-config libseccomp-dev:/usr/include/seccomp.h iptables:iptables openssl:openssl
      ;;
    netns) echo iproute2:ip ;;
    *)
      netfork::log "unknown group '$1' (want ci, test, verify, kind or netns)"
      return 1
      ;;
  esac
}

# installed reports whether a probe (a command, or an absolute path) is present.
installed() {
  if [[ "$1" == /* ]]; then
    [[ -e "$1" ]]
  else
    PATH="${PATH}:/usr/sbin:/sbin" command -v "$1" >/dev/null
  fi
}

if [[ $# -eq 0 ]]; then
  netfork::log "usage: hack/install-deps.sh GROUP... (ci, test, verify, kind, netns)"
  exit 1
fi
missing=()
for group in "$@"; do
  line="$(packages_of "${group}")" || exit 1
  read -r -a pairs <<<"${line}"
  for pair in "${pairs[@]}"; do
    installed "${pair#*:}" || missing+=("${pair%%:*}")
  done
done
if [[ ${#missing[@]} -eq 0 ]]; then
  exit 0
fi
if ! command -v apt-get >/dev/null; then
  netfork::log "missing ${missing[*]}, and no apt-get to install them with: install them, then run this again"
  exit 1
fi
sudo=()
if [[ "$(id -u)" -ne 0 ]]; then
  sudo=(sudo)
fi
netfork::run "${sudo[@]}" apt-get update -qq
netfork::run env DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
