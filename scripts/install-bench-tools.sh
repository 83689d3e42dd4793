#!/bin/sh
# Installs Debian's wrk (HTTP load generator) and hyperfine (command timer) for `npm run bench`.
# Idempotent: does nothing when both are there. Debian packages only, through apt-get.
set -eu

missing=""
command -v wrk >/dev/null 2>&1 || missing="wrk"
command -v hyperfine >/dev/null 2>&1 || missing="$missing hyperfine"
if [ -z "$missing" ]; then
  echo "install-bench-tools: wrk and hyperfine already present; nothing to do"
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  SUDO=
elif command -v sudo >/dev/null 2>&1; then
  SUDO=sudo
else
  echo "install-bench-tools: missing:$missing, and installing needs root (run as root or install sudo)" >&2
  exit 1
fi

echo "install-bench-tools: missing:$missing; installing Debian's packages with apt-get"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
# shellcheck disable=SC2086 # one word per package
$SUDO apt-get install -y --no-install-recommends $missing
echo "install-bench-tools: installed $(command -v wrk) $(command -v hyperfine)"
