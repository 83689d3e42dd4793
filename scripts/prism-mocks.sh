#!/bin/sh
# Serves stateless Prism mocks of the three bundled specs on 127.0.0.1: event streams on 4011,
# token endpoint on 4012, management on 4013. Ctrl-C stops all three. For a stateful platform
# use `npm start` (the emulator) instead.
set -eu
cd "$(dirname "$0")/.."
prism=node_modules/.bin/prism
pids=""
for entry in event-streams:4011 auth:4012 management:4013; do
  api=${entry%%:*}; port=${entry##*:}
  # The binary itself, not `npx prism`: killing an npx wrapper leaves Prism running.
  "$prism" mock -h 127.0.0.1 -p "$port" -v error "spec/dist/$api.yaml" &
  pids="$pids $!"
  echo "Prism mock of $api: http://127.0.0.1:$port"
done
trap 'kill $pids 2>/dev/null' INT TERM EXIT
wait
