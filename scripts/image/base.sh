#!/bin/sh
# Builds the offline base image (scripts/image/base.Containerfile) unless it is already there, and prints
# its name. Its tag names the Node version and Debian release, so a second `npm run image` skips this step.
# Usage: sh scripts/image/base.sh ENGINE   (podman or docker; run by scripts/image.sh, which puts the
# checkout's Node first on PATH; needs mmdebstrap: sh scripts/install-podman.sh)
set -eu
engine=$1
here=$(cd "$(dirname "$0")" && pwd)
debian=bookworm
node_bin=$(command -v node)
version=$("$node_bin" -p 'process.versions.node')
tag="localhost/platform-api-node:$version-$debian"

if "$engine" image exists "$tag" 2>/dev/null || "$engine" image inspect "$tag" >/dev/null 2>&1; then
  echo "$tag"
  exit 0
fi
command -v mmdebstrap >/dev/null || { echo "image: mmdebstrap is missing (sh scripts/install-podman.sh)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "image: building the offline base $tag (Debian $debian libraries + Node $version)" >&2
mmdebstrap --quiet --variant=extract --include=libc6,libgcc-s1,libstdc++6 --skip=output/dev \
  --dpkgopt='path-exclude=/usr/share/*' --dpkgopt='path-exclude=/usr/lib/x86_64-linux-gnu/gconv/*' \
  "$debian" "$work/rootfs.tar" >&2
printf 'root:x:0:0:root:/root:/usr/sbin/nologin\nnode:x:1000:1000:node:/home/node:/usr/sbin/nologin\n' >"$work/passwd"
printf 'root:x:0:\nnode:x:1000:\n' >"$work/group"
cp "$(readlink -f "$node_bin")" "$work/node"
# The npm package's binary keeps its debug symbols (about 18 MB), which the image has no use for.
if command -v strip >/dev/null; then strip "$work/node"; fi
cp "$here/base.Containerfile" "$work/Containerfile"
"$engine" build --quiet --tag "$tag" "$work" >&2
echo "$tag"
