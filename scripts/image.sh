#!/usr/bin/env bash
# `make image`: the container image of deploy/Containerfile, tagged actui:<content hash>
# (and actui:latest). Nothing is built when an image of the same inputs exists: the hash
# covers the Containerfile, the package list, the project's sources, this script, APPS
# and the base image. The base image (debian:12-slim) is made from Debian's packages with
# debootstrap when none is present, so no image registry is needed. The last line on
# stdout names the image.
set -euo pipefail
cd "$(dirname "$0")/.."
export CONTAINERS_CONF="${CONTAINERS_CONF:-$PWD/deploy/containers.conf}"
APPS="${APPS-zenity}"
BASE=debian:12-slim
MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"

for tool in podman runc; do
  if ! command -v "$tool" >/dev/null; then
    echo "image: $tool is missing: run scripts/bootstrap.sh (or apt-get install podman runc catatonit debootstrap)" >&2
    exit 2
  fi
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if ! podman image exists "$BASE"; then
  if [ "$(id -u)" != 0 ] || ! command -v debootstrap >/dev/null; then
    echo "image: the base image $BASE is missing; making it needs debootstrap, run as root" >&2
    exit 2
  fi
  echo "image: making $BASE from Debian's packages (debootstrap)" >&2
  debootstrap --variant=minbase bookworm "$work/rootfs" "$MIRROR" >"$work/debootstrap.log" 2>&1 \
    || { tail -20 "$work/debootstrap.log" >&2; exit 1; }
  # What Debian's own slim images leave out: documentation, manuals, translations.
  cat >"$work/rootfs/etc/dpkg/dpkg.cfg.d/slim" <<'SLIM'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-include /usr/share/locale/locale.alias
path-exclude /usr/share/help/*
SLIM
  printf 'APT::Install-Recommends "false";\nAPT::Keep-Downloaded-Packages "false";\n' \
    >"$work/rootfs/etc/apt/apt.conf.d/slim"
  tar -C "$work/rootfs" --exclude='./var/cache/apt/archives/*.deb' \
    --exclude='./var/lib/apt/lists/*' --exclude='./usr/share/doc/*' \
    --exclude='./usr/share/man/*' --exclude='./usr/share/locale/*' -c . \
    | podman import -q - "$BASE" >/dev/null
  rm -rf "$work/rootfs"
fi

# What the image is made from, copied without build leftovers (__pycache__, egg-info).
mkdir -p "$work/context/deploy" "$work/project"
cp deploy/Containerfile deploy/runtime-packages "$work/context/deploy/"
cp -r pyproject.toml README.md src "$work/project/"
find "$work/project" \( -name __pycache__ -o -name '*.egg-info' \) -prune -exec rm -rf {} +
hash=$(
  {
    echo "APPS=$APPS"
    podman image inspect --format '{{.Id}}' "$BASE"
    sha256sum scripts/image.sh
    cd "$work" && find context project -type f -print0 | sort -z | xargs -0 sha256sum
  } | sha256sum | cut -c1-12
)
image="actui:$hash"
if podman image exists "$image"; then
  echo "image: $image is up to date" >&2
else
  echo "image: building $image (APPS=$APPS)" >&2
  # The wheels are made here, where pip reaches the package index; the build installs them offline.
  python="${PYTHON:-.venv/bin/python}"
  if [ ! -x "$python" ]; then
    python3 -m venv "$work/venv" && python="$work/venv/bin/python"
  fi
  if ! "$python" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))'; then
    echo "image: $python is not Python 3.11, the image's (Debian 12): its wheels would not fit" >&2
    exit 2
  fi
  "$python" -m pip wheel -q --wheel-dir "$work/context/wheels" "$work/project" >"$work/wheel.log" 2>&1 \
    || { tail -20 "$work/wheel.log" >&2; exit 1; }
  started=$(date +%s)
  podman build -q --pull=never --build-arg "APPS=$APPS" -f "$work/context/deploy/Containerfile" \
    -t "$image" "$work/context" >"$work/build.log" 2>&1 \
    || { tail -30 "$work/build.log" >&2; exit 1; }
  size=$(podman image inspect --format '{{.Size}}' "$image")
  echo "image: built $image in $(($(date +%s) - started)) s, $((size / 1000000)) MB" >&2
  # Earlier builds of this script go (those a container still uses stay).
  podman images --format '{{.Repository}}:{{.Tag}}' | grep -E '^localhost/actui:[0-9a-f]{12}$' \
    | grep -vx "localhost/$image" | xargs -r podman rmi >/dev/null 2>&1 || true
  podman image prune -f >/dev/null
fi
podman tag "$image" actui:latest
echo "$image"
