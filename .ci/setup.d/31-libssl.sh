#!/usr/bin/env bash
# The chunk records' sha256 (docqa._parse, csrc/_records.pxi) links libcrypto when CMake finds
# OpenSSL's headers (libssl-dev); without them the digests come from hashlib (same bytes,
# slower). Idempotent: installs only what is missing; `apt-get update` only when installing.
set -euo pipefail
if [ -f /usr/include/openssl/evp.h ] && ls /usr/lib/*/libcrypto.so >/dev/null 2>&1; then
    exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends libssl-dev >/dev/null
