#!/bin/sh
# Installs Debian's chromium for the docs browser test (playwright-core drives it at /usr/bin/chromium).
# Idempotent: does nothing when the browser is already there. Never downloads a Playwright browser.
set -eu

CHROMIUM=/usr/bin/chromium

if [ -x "$CHROMIUM" ]; then
  echo "install-chromium: $CHROMIUM already present ($("$CHROMIUM" --version 2>/dev/null || echo 'version unknown')); nothing to do"
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  SUDO=
elif command -v sudo >/dev/null 2>&1; then
  SUDO=sudo
else
  echo "install-chromium: $CHROMIUM is missing and installing it needs root (run as root or install sudo)" >&2
  exit 1
fi

echo "install-chromium: $CHROMIUM is missing; installing Debian's chromium package with apt-get"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update
$SUDO apt-get install -y chromium
echo "install-chromium: installed $("$CHROMIUM" --version)"
