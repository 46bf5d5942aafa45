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

# test-install-deps.sh checks hack/install-deps.sh on a fresh machine: a container of a
# minimal Debian rootfs (debootstrap minbase of DEBIAN_SUITE, default trixie, made and cached
# as the kind path makes its rootfs) runs install-deps with every group, then uses what each
# group is for: the kind path's compilers (a static binary for pause, libseccomp through
# pkg-config for runc) and its commands, shellcheck, make, ip. A second run must install
# nothing. The container shares the host's network, since apt-get must reach Debian's
# package mirror; nothing else in it talks to the network.
source "$(dirname "${BASH_SOURCE[0]}")/lib/init.sh"
source "${NETFORK_ROOT}/kind/lib/common.sh"
source "${NETFORK_ROOT}/kind/lib/preflight.sh"
source "${NETFORK_ROOT}/kind/lib/build.sh"
source "${NETFORK_ROOT}/kind/lib/base.sh"

[[ $# -eq 0 ]] || netfork::kind::die "test-install-deps.sh takes no arguments (DEBIAN_SUITE picks the release)"
hack/install-deps.sh kind
netfork::kind::require_docker

# DEBIAN_FRESH_PACKAGES is a fresh machine's: minbase (apt, bash, coreutils) and nothing of
# what install-deps.sh installs.
# shellcheck disable=SC2034 # debian_image reads it by name
DEBIAN_FRESH_PACKAGES=(ca-certificates)
image="$(netfork::kind::debian_image DEBIAN_FRESH_PACKAGES)"

# checks.sh runs in the container: install-deps.sh with the test group alone, then every group, then each thing used as
# the targets use it, then install-deps.sh again, which must do nothing.
work="$(mktemp -d "${NETFORK_KIND_OUTPUT}/install-deps.XXXXXX")"
trap 'rm -rf "${work}"' EXIT
cat >"${work}/checks.sh" <<'SH'
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
# The test group alone first: go test -race needs cgo, which needs gcc and libc's headers.
/src/hack/install-deps.sh test
printf '#include <stdio.h>\nint main(void) { return puts("") < 0; }\n' >/tmp/cgo.c
gcc -o /tmp/cgo /tmp/cgo.c || fail "gcc with libc's headers (cgo, for go test -race) does not build"
/src/hack/install-deps.sh ci verify kind netns
for cmd in debootstrap jq gcc pkg-config iptables ip6tables ip make shellcheck; do
  PATH="${PATH}:/usr/sbin:/sbin" command -v "${cmd}" >/dev/null || fail "no ${cmd} after install-deps.sh"
done
cd "$(mktemp -d)"
printf 'int main(void) { return 0; }\n' >static.c
gcc -static -o static static.c || fail "gcc -static (the pause binary) does not link"
./static
printf '#include <seccomp.h>\nint main(void) { scmp_filter_ctx c = seccomp_init(SCMP_ACT_ALLOW); seccomp_release(c); return c == 0; }\n' >seccomp.c
# shellcheck disable=SC2046 # pkg-config prints one flag per word
gcc -o seccomp seccomp.c $(pkg-config --cflags --libs libseccomp) || fail "libseccomp through pkg-config (runc's seccomp) does not build"
./seccomp
echo '{}' | jq -e . >/dev/null || fail "jq does not run"
PATH="${PATH}:/usr/sbin" debootstrap --version >/dev/null || fail "debootstrap does not run"
again="$(/src/hack/install-deps.sh ci test verify kind netns 2>&1)" || fail "second run failed: ${again}"
[[ -z "${again}" ]] || fail "second run was not a no-op: ${again}"
SH

start=${SECONDS}
netfork::run docker run --rm --network host -v "${NETFORK_ROOT}:/src:ro" -v "${work}/checks.sh:/checks.sh:ro" \
  "${image}" bash /checks.sh
netfork::log "install-deps.sh on a fresh ${DEBIAN_SUITE} container: every group installed and usable ($((SECONDS - start))s)"
