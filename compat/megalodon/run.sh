#!/usr/bin/env bash
# megalodon's Mastodon driver (compat/megalodon/run.ts, megalodon 10.3.0 from
# npm) against a fresh Rookery on the embedded database, behind nginx with the
# test certificate (compat/serve.ts). Needs Deno and nginx (or PROXY=caddy, or
# PROXY=none for plain http).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
cd "$ROOT"
# Fetched first: with --cert (the test CA) Deno would not trust the registry.
deno cache --no-lock "$HERE/run.ts"
# --no-lock: megalodon is the script's own import, not one of Rookery's dependencies.
exec deno run -A --cert tests/fixtures/tls/ca.pem compat/serve.ts --proxy "${PROXY:-nginx}" \
  -- deno run -A --no-lock --cert tests/fixtures/tls/ca.pem "$HERE/run.ts"
