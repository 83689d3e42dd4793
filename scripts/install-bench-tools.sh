#!/bin/sh
# Debian's wrk (HTTP load generator) and hyperfine (command timer) for `npm run bench`, and
# redis-server for its rows with shared state on Redis.
set -eu
sh "$(dirname "$0")/install-debian-tools.sh" wrk hyperfine
exec sh "$(dirname "$0")/install-redis.sh"
