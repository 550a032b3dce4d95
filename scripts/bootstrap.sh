#!/usr/bin/env bash
# Installs what actui needs on a fresh Debian machine: system packages (only the
# missing ones) and the project in a virtual environment at .venv.
set -euo pipefail
cd "$(dirname "$0")/.."

SYSTEM_PACKAGES=(
  xvfb dbus dbus-x11 at-spi2-core at-spi2-common x11-utils x11-xserver-utils openbox xdotool
  fonts-dejavu-core fonts-liberation
  zenity gnome-calculator gtk-3-examples gtk-4-examples mousepad xfce4-appfinder tesseract-ocr
  libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxkbcommon-x11-0 libegl1 libgl1
  chromium
  # The real-app corpus: ordinary Debian apps none of us wrote (Qt 5, Qt 6, GTK 3, GTK 4, Gecko, plain X11).
  featherpad designer-qt6 thunar galculator gnome-text-editor firefox-esr x11-apps xterm geany
  libreoffice-calc libreoffice-gtk3
  # Documents: Writer's page and menus, Evince's pages; pdftotext/pdfinfo read the PDFs back.
  libreoffice-writer libreoffice-impress evince poppler-utils
  # Wayland: a headless sway (its swaymsg too), grim to capture it, Qt 5's Wayland plugin.
  sway grim qtwayland5
  # GNOME headless (`--wayland=gnome`): gnome-shell 43 brings mutter, its window list,
  # screenshots and remote-desktop keyboard; its pointer needs a screen cast, over PipeWire.
  gnome-shell pipewire wireplumber
  # Toolkits whose bridge loads only when asked: GTK 2 (gmrun) and Java Swing (the ATK wrapper).
  gmrun libatk-adaptor libgail-common openjdk-17-jdk-headless libatk-wrapper-java-jni
  # Fixture apps of our own in tests/apps/ run on Debian's python3 with GTK 3 bindings, and Tk.
  python3-gi gir1.2-gtk-3.0 python3-tk
  # The container image and its tests (make image, tests/integration/test_container.py).
  podman runc catatonit debootstrap iptables haproxy
)
# What the container image runs on (deploy/Containerfile installs the same list).
while read -r -a listed; do
  if ((${#listed[@]})) && [[ ${listed[0]} != \#* ]]; then SYSTEM_PACKAGES+=("${listed[@]}"); fi
done <deploy/runtime-packages

missing=()
for pkg in "${SYSTEM_PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done
if ((${#missing[@]})); then
  echo "bootstrap: installing system packages: ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  if ! "$PYTHON" -m venv .venv 2>/dev/null; then
    rm -rf .venv
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
    "$PYTHON" -m venv .venv
  fi
fi
stamp=".venv/.actui-installed"
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ] || [ "$0" -nt "$stamp" ]; then
  echo "bootstrap: installing actui into .venv"
  .venv/bin/python -m pip install -q --upgrade pip 2>&1 | grep -v "^WARNING" || true
  .venv/bin/python -m pip install -q -e '.[dev]' 2>&1 | grep -v "^WARNING" || true
  # MiniWoB++ task pages for the browser tests; its Python dependencies (gym, selenium) are not used.
  .venv/bin/python -m pip install -q --no-deps miniwob==1.1.0 2>&1 | grep -v "^WARNING" || true
  .venv/bin/python -c "import actui, dbus_fast, Xlib, mcp" 
  touch "$stamp"
fi
