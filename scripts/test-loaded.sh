#!/bin/sh
# npm run test:loaded: the README's test command while another process keeps one core busy, as on a
# shared CI runner or a developer's machine running a build beside the tests. The suite must pass so:
# no test may depend on how busy the machine is. Turbo's cache is bypassed (TURBO_FORCE): every task runs.
set -eu
cd "$(dirname "$0")/.."
# A busy loop on one core (the first, where taskset exists), stopped whatever the tests do.
if command -v taskset >/dev/null 2>&1; then
  taskset -c 0 node -e 'for (;;);' &
else
  node -e 'for (;;);' &
fi
hog=$!
trap 'kill "$hog" 2>/dev/null || true' EXIT INT TERM
echo "test-loaded: a busy process ($hog) holds one core while npm test runs"
TURBO_FORCE=true npm test
