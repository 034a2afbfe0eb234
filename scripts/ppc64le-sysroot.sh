#!/usr/bin/env bash
# Unpack the ppc64el builds of potm's library dependencies into a sysroot for
# the cross build (cmake/toolchain-ppc64le.cmake).  Idempotent: a complete
# sysroot is left alone.
#
#   scripts/ppc64le-sysroot.sh           create it if missing
#   scripts/ppc64le-sysroot.sh --print   print its path only
set -euo pipefail

if [ "$(id -u)" -eq 0 ]; then
    root=/var/cache/potm/ppc64le-sysroot
else
    root="${XDG_CACHE_HOME:-$HOME/.cache}/potm/ppc64le-sysroot"
fi
if [ "${1:-}" = --print ]; then
    echo "$root"
    exit 0
fi
[ -f "$root/.complete.v2" ] && exit 0

pkgs=(libnuma-dev libnuma1 liburcu-dev liburcu8 check libsubunit-dev libsubunit0)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/debs"
opts=(-o APT::Architecture=ppc64el -o APT::Architectures::=ppc64el
      -o Dir::State::Lists="$work/lists" -o Dir::Cache="$work/cache"
      -o Debug::NoLocking=1 -o APT::Sandbox::User=root)
echo "ppc64le-sysroot: fetching ${pkgs[*]} (ppc64el)"
# A mirror caught mid-sync can fail one index (e.g. security); the main
# archive has everything we need, so go on and let the download decide.
apt-get -qq "${opts[@]}" update >"$work/update.log" 2>&1 ||
    echo "ppc64le-sysroot: apt update reported errors (see below if the download fails)" >&2
(cd "$work/debs" && apt-get -qq "${opts[@]}" download "${pkgs[@]}" >"$work/download.log" 2>&1) || true
for p in "${pkgs[@]}"; do
    if ! ls "$work/debs/${p}"_*.deb >/dev/null 2>&1; then
        echo "ppc64le-sysroot: could not download $p:ppc64el" >&2
        cat "$work/update.log" "$work/download.log" >&2
        exit 1
    fi
done
rm -rf "$root"
mkdir -p "$root"
for d in "$work"/debs/*.deb; do dpkg-deb -x "$d" "$root"; done
# The cross build links statically (qemu-user then needs no target loader):
# leave the linker no shared object to prefer.
find "$root" -name '*.so' -o -name '*.so.*' | xargs -r rm -f
touch "$root/.complete.v2"
echo "ppc64le-sysroot: ready in $root"
