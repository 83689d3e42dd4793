#!/bin/sh
# Debian's wrk (HTTP load generator) and hyperfine (command timer) for `npm run bench`.
exec sh "$(dirname "$0")/install-debian-tools.sh" wrk hyperfine
