#!/bin/sh
# Installs Debian's chromium for the docs browser test (playwright-core drives it at /usr/bin/chromium),
# and curl, which the docs quick-start test runs. Idempotent: does nothing when both are there.
# Never downloads a Playwright browser.
set -eu

CHROMIUM=/usr/bin/chromium

missing=""
[ -x "$CHROMIUM" ] || missing="chromium"
command -v curl >/dev/null 2>&1 || missing="$missing curl"
if [ -z "$missing" ]; then
  echo "install-chromium: $CHROMIUM already present ($("$CHROMIUM" --version 2>/dev/null || echo 'version unknown')); nothing to do"
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  SUDO=
elif command -v sudo >/dev/null 2>&1; then
  SUDO=sudo
else
  echo "install-chromium: missing:$missing, and installing needs root (run as root or install sudo)" >&2
  exit 1
fi

echo "install-chromium: missing:$missing; installing Debian's packages with apt-get"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
# shellcheck disable=SC2086 # one word per package
$SUDO apt-get install -y $missing
echo "install-chromium: installed $("$CHROMIUM" --version)"
