#!/bin/sh
# npm run image: builds the emulator's container image (Containerfile) with podman, or docker where that is
# the engine the machine has. The base is the public Node 24 image when it is present or can be pulled;
# otherwise (no registry reachable, as on the project's machines and CI) an offline base built from Debian's
# packages and this checkout's Node (scripts/image/base.sh, cached by tag).
# Environment: IMAGE_TAG (default platform-api-mock:dev), IMAGE_BASE (a base to use as it is), IMAGE_PREBUILT
# (set: the emulator, docs and console are built already).
set -eu
cd "$(dirname "$0")/.."
# The checkout's Node 24 and turbo also when called outside npm (the bench, the container test).
[ -x node_modules/.bin/node ] || { echo "image: run npm ci first" >&2; exit 1; }
PATH="$PWD/node_modules/.bin:$PATH"
tag=${IMAGE_TAG:-platform-api-mock:dev}
public_base=docker.io/library/node:24-bookworm-slim

engine=
for candidate in podman docker; do
  if command -v "$candidate" >/dev/null && "$candidate" info >/dev/null 2>&1; then engine=$candidate && break; fi
done
if [ -z "$engine" ]; then
  echo "image: no working podman or docker; on Debian: sh scripts/install-podman.sh" >&2
  exit 1
fi

base=${IMAGE_BASE:-}
if [ -z "$base" ]; then
  if "$engine" image inspect "$public_base" >/dev/null 2>&1 || "$engine" pull -q "$public_base" >/dev/null 2>&1; then
    base=$public_base
  else
    echo "image: $public_base cannot be pulled; using an offline base" >&2
    base=$(sh scripts/image/base.sh "$engine")
  fi
fi

# The emulator, the docs and the console, built. IMAGE_PREBUILT=1 (the container test): the caller's turbo built them
# already, and a nested turbo would restore their outputs again while other tasks of that run read them.
if [ -z "${IMAGE_PREBUILT:-}" ]; then
  sh scripts/turbo.sh run build --filter=@platform-api/mock-server --filter=@platform-api/docs --filter=@platform-api/console \
    --output-logs=errors-only
fi
context=.cache/image-context
node scripts/image/context.mjs "$context"
# The docker format keeps the HEALTHCHECK (the OCI format has no field for it).
format=
[ "$engine" = podman ] && format="--format docker"
previous=$("$engine" image inspect --format '{{.Id}}' "$tag" 2>/dev/null || true)
# shellcheck disable=SC2086 # an empty format is no argument
"$engine" build $format --build-arg "BASE=$base" --file Containerfile --tag "$tag" "$context"
# The image this build replaced would stay behind untagged (some 80 MB a rebuild); unless a container uses it.
if [ -n "$previous" ] && [ "$previous" != "$("$engine" image inspect --format '{{.Id}}' "$tag")" ]; then
  "$engine" rmi "$previous" >/dev/null 2>&1 || true
fi
echo "image: built $tag on $base ($("$engine" image inspect --format '{{.Size}}' "$tag" | awk '{ printf "%.0f MB", $1 / 1e6 }'))"
