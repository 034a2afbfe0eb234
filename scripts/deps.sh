#!/usr/bin/env bash
# Install potm's system dependencies, idempotently: only what is missing is
# installed, so a second run is a no-op that needs no network.
#
#   scripts/deps.sh            C toolchain, libraries, Check, Python packages
#   POTM_DEPS_SKIP_PY=1 ...    skip the Python packages
set -euo pipefail

debian_pkgs=(build-essential cmake pkg-config libnuma-dev liburcu-dev check
             python3-pip python3-venv)

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

if [ "${POTM_DEPS_SKIP_PY:-0}" != 1 ]; then
    py=${PYTHON:-python3}
    pymissing=()
    for m in cffi numpy matplotlib pytest; do
        "$py" -c "import $m" 2>/dev/null || pymissing+=("$m")
    done
    if ((${#pymissing[@]})); then
        echo "deps.sh: installing Python packages ${pymissing[*]}"
        "$py" -m pip install -q "${pymissing[@]}" 2>/dev/null ||
            "$py" -m pip install -q --break-system-packages "${pymissing[@]}"
    else
        echo "deps.sh: Python packages present"
    fi
fi
