#!/usr/bin/env bash
# The native Markdown walk (docqa._md4c) links Debian's md4c (libmd4c-dev: header and
# library); CMake builds it only when it finds them, else Markdown takes the pyromark path.
# Idempotent: installs only what is missing; `apt-get update` only when installing.
set -euo pipefail
if [ -f /usr/include/md4c.h ] && ls /usr/lib/*/libmd4c.so >/dev/null 2>&1; then
    exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends libmd4c-dev >/dev/null
