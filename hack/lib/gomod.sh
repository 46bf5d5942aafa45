#!/usr/bin/env bash
# gomod.sh reads the pins out of a go.mod; it is sourced after init.sh. Every function takes
# the go.mod path as its first argument so that verify scripts can check a copy.

# netfork::gomod::require prints the version a go.mod requires for one module path.
netfork::gomod::require() {
  local gomod="$1" module="$2"
  awk -v m="${module}" '
    /^require[ \t]*\(/ { inblock = 1; next }
    inblock && /^[ \t]*\)/ { inblock = 0; next }
    inblock && $1 == m { print $2; exit }
    $1 == "require" && $2 == m { print $3; exit }
  ' "${gomod}"
}

# netfork::gomod::k8s_version prints the k8s.io/kubernetes version a go.mod requires
# (e.g. v1.37.1) and fails if there is none, since every version string derives from it.
netfork::gomod::k8s_version() {
  local gomod="$1" version
  version="$(netfork::gomod::require "${gomod}" k8s.io/kubernetes)"
  if [[ -z "${version}" ]]; then
    echo "${gomod}: no k8s.io/kubernetes requirement" >&2
    return 1
  fi
  echo "${version}"
}

# netfork::gomod::staging_version maps a k8s.io/kubernetes version onto the version its
# staging modules are tagged with: v1.37.1 -> v0.37.1, v1.38.0-rc.1 -> v0.38.0-rc.1.
netfork::gomod::staging_version() {
  local version="$1"
  if [[ ! "${version}" =~ ^v1\.([0-9]+)\.([0-9]+)(-[0-9A-Za-z.-]+)?$ ]]; then
    echo "k8s.io/kubernetes version ${version} does not look like v1.MINOR.PATCH" >&2
    return 1
  fi
  echo "v0.${BASH_REMATCH[1]}.${BASH_REMATCH[2]}${BASH_REMATCH[3]}"
}

# netfork::gomod::upstream_staging prints, sorted, every module that upstream's go.mod for
# k8s.io/kubernetes@version replaces to ./staging.
netfork::gomod::upstream_staging() {
  local version="$1" upstream_mod
  upstream_mod="$(go mod download -json "k8s.io/kubernetes@${version}" |
    sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",\{0,1\}$/\1/p')"
  if [[ -z "${upstream_mod}" || ! -f "${upstream_mod}" ]]; then
    echo "could not download the go.mod of k8s.io/kubernetes@${version}" >&2
    return 1
  fi
  sed -n 's|^[[:space:]]*\(replace[[:space:]]\{1,\}\)\{0,1\}\(k8s.io/[^[:space:]]*\)[[:space:]]*=>[[:space:]]*\./staging/.*|\2|p' \
    "${upstream_mod}" | LC_ALL=C sort -u
}
