#!/usr/bin/env bash
# Install potm's system dependencies, idempotently: only what is missing is
# installed, so a second run is a no-op that needs no network.
#
#   scripts/deps.sh            C toolchain, libraries, Check, Python packages,
#                              the powerpc64le cross toolchain and qemu-user
#   POTM_DEPS_SKIP_PY=1 ...    skip the Python packages
#   POTM_DEPS_SKIP_PPC=1 ...   skip the POWER cross toolchain
#
# The POWER backends are cross-compiled: Debian's powerpc64le GCC and
# qemu-user come from the host's own architecture; the target libraries
# (libnuma, liburcu, Check) are downloaded as ppc64el .debs with a private
# apt state and unpacked into a sysroot, so the host's apt configuration is
# never changed (no dpkg --add-architecture).
set -euo pipefail

debian_pkgs=(build-essential cmake pkg-config libnuma-dev liburcu-dev check
             libraft-dev libuv1-dev python3-pip python3-venv)
if [ "${POTM_DEPS_SKIP_PPC:-0}" != 1 ]; then
    debian_pkgs+=(gcc-powerpc64le-linux-gnu libc6-dev-ppc64el-cross qemu-user)
fi

missing=()
for p in "${debian_pkgs[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done

if ((${#missing[@]})); then
    if ! command -v apt-get >/dev/null; then
        echo "deps.sh: missing packages ${missing[*]} and no apt-get: install them by hand" >&2
        exit 1
    fi
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    echo "deps.sh: installing ${missing[*]}"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
    echo "deps.sh: system packages present"
fi

# ---- powerpc64le sysroot -------------------------------------------------
ppc_sysroot=$(bash "$(dirname "$0")/ppc64le-sysroot.sh" --print)
if [ "${POTM_DEPS_SKIP_PPC:-0}" != 1 ] && [ ! -f "$ppc_sysroot/.complete.v2" ]; then
    bash "$(dirname "$0")/ppc64le-sysroot.sh"
fi

if [ "${POTM_DEPS_SKIP_PY:-0}" != 1 ]; then
    py=${PYTHON:-python3}
    pymissing=()
    # module:package; tqdm draws the package's progress bar, pandas
    # (SweepTable.to_pandas) and IPython (inline figures) are optional for
    # the package but installed so that their tests run; mypy checks the
    # package's types in make test; pytest-xdist runs the tests in parallel.
    for pair in cffi:cffi numpy:numpy matplotlib:matplotlib pytest:pytest tqdm:tqdm \
                pandas:pandas IPython:ipython mypy:mypy xdist:pytest-xdist; do
        "$py" -c "import ${pair%%:*}" 2>/dev/null || pymissing+=("${pair#*:}")
    done
    # The type stubs mypy --strict needs for the package's imports.
    for stubs in types-cffi types-tqdm; do
        "$py" -m pip show -q "$stubs" >/dev/null 2>&1 || pymissing+=("$stubs")
    done
    if ((${#pymissing[@]})); then
        echo "deps.sh: installing Python packages ${pymissing[*]}"
        "$py" -m pip install -q "${pymissing[@]}" 2>/dev/null ||
            "$py" -m pip install -q --break-system-packages "${pymissing[@]}"
    else
        echo "deps.sh: Python packages present"
    fi
fi
