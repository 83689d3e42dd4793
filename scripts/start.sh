#!/bin/sh
# npm start [-- FLAGS]: builds what changed, then runs the emulator with FLAGS (npm appends the words
# after `--` to this script's arguments, which a nested `npm run` would take as npm's own options).
set -eu
cd "$(dirname "$0")/.."
echo 'npm start: building the specs, packages, docs and console (about a minute the first time, cached afterwards)'
# hash-only: a line as each task starts (cached or executing), the tasks' own logs only on failure.
sh scripts/turbo.sh run build --output-logs=hash-only
exec node packages/mock-server/bin/platform-api-mock.js "$@"
