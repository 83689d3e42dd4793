#!/bin/sh
# Installs, through apt-get, the Debian packages that provide the given commands, skipping every
# command already on PATH; does nothing when all are there. Debian packages only, never downloads.
# Usage: sh scripts/install-debian-tools.sh COMMAND[=PACKAGE]...   (PACKAGE defaults to COMMAND)
set -eu

missing=""
for wanted in "$@"; do
  command=${wanted%%=*}
  package=${wanted#*=}
  command -v "$command" >/dev/null 2>&1 || missing="$missing $package"
done
if [ -z "$missing" ]; then
  echo "install-debian-tools: $* already present; nothing to do"
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  SUDO=
elif command -v sudo >/dev/null 2>&1; then
  SUDO=sudo
else
  echo "install-debian-tools: missing:$missing, and installing needs root (run as root or install sudo)" >&2
  exit 1
fi

echo "install-debian-tools: missing:$missing; installing Debian's packages with apt-get"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
# shellcheck disable=SC2086 # one word per package
$SUDO apt-get install -y --no-install-recommends $missing
for wanted in "$@"; do echo "install-debian-tools: $(command -v "${wanted%%=*}")"; done
