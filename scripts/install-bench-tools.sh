#!/bin/sh
# Debian's wrk (HTTP load generator) and hyperfine (command timer) for `npm run bench`,
# redis-server for its rows with shared state on Redis, podman for the container image's rows, and
# chromium for the live loop's (the open docs pages).
set -eu
sh "$(dirname "$0")/install-debian-tools.sh" wrk hyperfine
sh "$(dirname "$0")/install-chromium.sh"
sh "$(dirname "$0")/install-redis.sh"
exec sh "$(dirname "$0")/install-podman.sh"
