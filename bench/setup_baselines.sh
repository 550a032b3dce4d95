#!/usr/bin/env bash
# Installs the peer baselines the desktop benchmarks compare against, idempotently:
# Debian's pyatspi/gi/GTK3 typelib/dbus bindings (apt-get only what is missing) and
# dogtail from PyPI in bench/.baseline-venv, a venv of Debian's python3 that sees the
# system site-packages (the python3 on PATH may be a build without gi); and for
# bench_tokens.py: playwright-mcp from npm in bench/.baselines/playwright-mcp (no browser
# download: it drives Debian's chromium) and tiktoken + bpe-openai (the o200k_base ranks,
# see bench/o200k.py) in the venv that runs the benchmarks ($BENCH_PYTHON, default .venv).
# Prints nothing but progress on stderr; exits non-zero if a baseline cannot be had.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="$here/.baseline-venv"
python="${BENCH_PYTHON:-$here/../.venv/bin/python}"
playwright_mcp="$here/.baselines/playwright-mcp"
playwright_mcp_version="0.0.83"
debs=(python3-pyatspi python3-gi gir1.2-gtk-3.0 python3-dbus python3-venv)

missing=()
for deb in "${debs[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$deb" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$deb")
    fi
done
if ((${#missing[@]})); then
    echo "setup_baselines: installing ${missing[*]}" >&2
    sudo_cmd=()
    if [[ $(id -u) -ne 0 ]]; then sudo_cmd=(sudo); fi
    "${sudo_cmd[@]}" apt-get update -qq >&2
    DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}" >&2
fi

if [[ ! -x "$venv/bin/python" ]]; then
    echo "setup_baselines: creating $venv" >&2
    /usr/bin/python3 -m venv --system-site-packages "$venv"
fi
if ! "$venv/bin/python" -c "import dogtail, pyatspi" 2>/dev/null; then
    echo "setup_baselines: installing dogtail" >&2
    "$venv/bin/pip" install -q --disable-pip-version-check dogtail >&2
fi
"$venv/bin/python" -c "import dogtail, pyatspi, gi" >&2

if [[ "$("$playwright_mcp/node_modules/.bin/playwright-mcp" --version 2>/dev/null)" != *"$playwright_mcp_version"* ]]; then
    echo "setup_baselines: installing @playwright/mcp@$playwright_mcp_version" >&2
    mkdir -p "$playwright_mcp"
    PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --prefix "$playwright_mcp" --no-audit --no-fund \
        --loglevel=error "@playwright/mcp@$playwright_mcp_version" >&2
fi
if ! "$python" -c "import tiktoken, importlib.util as u; assert u.find_spec('bpe_openai')" 2>/dev/null; then
    echo "setup_baselines: installing tiktoken and bpe-openai into $python" >&2
    "$python" -m pip install -q --disable-pip-version-check tiktoken bpe-openai >&2
fi
"$python" "$here/o200k.py" >&2
