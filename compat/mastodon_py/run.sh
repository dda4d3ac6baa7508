#!/usr/bin/env bash
# Mastodon.py (Debian's python3-mastodon 1.8) against a fresh Rookery on the
# embedded database, behind nginx with the test certificate, as production
# runs it (compat/serve.ts). Needs Deno, nginx (or PROXY=caddy, or PROXY=none
# for plain http) and /usr/bin/python3 with python3-mastodon.
#
#   compat/mastodon_py/run.sh            # VERBOSE=1 prints each failure's traceback
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
cd "$ROOT"
exec deno run -A --cert tests/fixtures/tls/ca.pem compat/serve.ts --proxy "${PROXY:-nginx}" \
  -- "${PYTHON:-/usr/bin/python3}" "$HERE/run.py"
