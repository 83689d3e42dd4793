#!/bin/sh
# Debian's chromium for the docs browser test (playwright-core drives /usr/bin/chromium; never a
# Playwright download) and curl, which the docs quick-start test runs.
exec sh "$(dirname "$0")/install-debian-tools.sh" chromium curl
