#!/bin/sh
# Debian's redis-server for the shared-state tests and bench rows (--redis-url); it brings redis-cli
# (redis-tools), with which the tests make a local three-master Redis Cluster. The tests start their own
# servers on free ports, so the package's service is never used.
exec sh "$(dirname "$0")/install-debian-tools.sh" redis-server
