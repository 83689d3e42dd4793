#!/bin/sh
# Debian's redis-server for the shared-state tests and bench rows (--redis-url); it brings redis-tools:
# redis-cli, with which the tests make a local three-master Redis Cluster, and redis-benchmark, with
# which the bench measures Redis alone. The tests start their own servers on free ports, so the
# package's service is never used.
exec sh "$(dirname "$0")/install-debian-tools.sh" redis-server
