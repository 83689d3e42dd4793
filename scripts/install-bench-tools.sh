#!/bin/sh
# Debian's wrk (HTTP load generator) and hyperfine (command timer) for `npm run bench`,
# redis-server for its rows with shared state on Redis, and podman for the container image's rows.
set -eu
sh "$(dirname "$0")/install-debian-tools.sh" wrk hyperfine
sh "$(dirname "$0")/install-redis.sh"
exec sh "$(dirname "$0")/install-podman.sh"
