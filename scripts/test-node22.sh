#!/bin/sh
# Runs the published packages' suites (client, mock-server, testcontainers) on Node 22.13, the oldest Node their
# engines allow, after `npm test` has built them. Node 22 comes from the npm registry's `node` package,
# installed once into .cache/node22 (the machines' own Node is 20).
set -eu
cd "$(dirname "$0")/.."
version=22.13.0
dir=.cache/node22
node22="$dir/node_modules/.bin/node"
if [ "$("$node22" --version 2>/dev/null)" != "v$version" ]; then
  npm install --prefix "$dir" --no-audit --no-fund --no-save "node@$version" >/dev/null
fi
echo "test-node22: $("$node22" --version)"
# Child processes the suites start by name ('node') must find Node 22 too.
PATH="$(pwd)/$dir/node_modules/.bin:$PATH"
export PATH
status=0
for package in packages/client packages/mock-server packages/testcontainers; do
  (cd "$package" && node ../../node_modules/vitest/vitest.mjs run) || status=1
done
exit "$status"
