#!/bin/sh
# Installs, through apt-get, the Debian packages of the given commands (each package is named as its
# command), skipping every command already on PATH; does nothing when all are there. Debian packages
# only, nothing else is downloaded.
# Usage: sh scripts/install-debian-tools.sh COMMAND...
set -eu

missing=""
for tool in "$@"; do
  command -v "$tool" >/dev/null 2>&1 || missing="$missing $tool"
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
for tool in "$@"; do echo "install-debian-tools: $(command -v "$tool")"; done
