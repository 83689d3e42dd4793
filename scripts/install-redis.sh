#!/bin/sh
# Debian's redis-server for the shared-state tests and bench rows (--redis-url); the tests start their
# own server on a free port, so the package's service is never used.
exec sh "$(dirname "$0")/install-debian-tools.sh" redis-server
