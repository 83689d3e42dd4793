#!/bin/sh
# Runs turbo with telemetry off (turbo's and Redocly's) on every machine, without touching user config.
export TURBO_TELEMETRY_DISABLED=1 REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true
exec turbo "$@"
