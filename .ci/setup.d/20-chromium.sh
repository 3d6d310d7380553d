#!/usr/bin/env bash
# The browser test of `docqa serve` drives Debian's chromium through chromium-driver (selenium).
# Idempotent: installs only what is missing; `apt-get update` only when installing.
set -euo pipefail
if command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; then
    exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends chromium chromium-driver fonts-dejavu-core >/dev/null
