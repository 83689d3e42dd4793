#!/bin/sh
# Debian's podman for the container image (`npm run image`) and the Testcontainers test, plus what
# building the image offline needs: mmdebstrap makes the base's minimal Debian root from Debian's
# packages (no registry is reachable on the project's machines). runc replaces crun, which fails on
# these machines ("cgroups in hybrid mode not supported"). Then writes /etc/containers/containers.conf
# when it is absent or says something else: without `default_ulimits = []` every run fails with
# "setrlimit RLIMIT_NPROC: Operation not permitted", and cgroupfs because systemd does not run here.
set -eu

sh "$(dirname "$0")/install-debian-tools.sh" podman runc mmdebstrap

conf=/etc/containers/containers.conf
wanted='[containers]
default_ulimits = []

[engine]
cgroup_manager = "cgroupfs"
runtime = "runc"'
if [ -f "$conf" ] && [ "$(cat "$conf")" = "$wanted" ]; then
  echo "install-podman: $conf already set"
  exit 0
fi
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
$SUDO mkdir -p "$(dirname "$conf")"
if [ -f "$conf" ]; then
  $SUDO cp "$conf" "$conf.before-platform-api"
  echo "install-podman: $conf differed; the old one is kept as $conf.before-platform-api"
fi
printf '%s\n' "$wanted" | $SUDO tee "$conf" >/dev/null
echo "install-podman: wrote $conf"
