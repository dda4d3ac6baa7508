#!/usr/bin/env bash
# Runs masto.js's own end-to-end suite (the client library's tests against a
# real server) against a fresh Rookery, the way a client developer would.
# Needs git, Node 20+ and npm, and network access to GitHub and npm.
#
#   compat/masto_js/run.sh [vitest filters...]
#
# MASTO_DIR (default /tmp/rookery-masto-js) keeps the clone between runs;
# PORT (default 3000); DATABASE_URL to run the server on PostgreSQL.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
# The masto.js commit the adapter was written against (masto 8.0.0).
COMMIT=49ab1a65
WORK=${MASTO_DIR:-/tmp/rookery-masto-js}
PORT=${PORT:-3000}
export MASTO_URL="http://localhost:$PORT" ROOKERY_DIR="$ROOT"

if [ ! -d "$WORK/.git" ]; then git clone -q https://github.com/neet/masto.js "$WORK"; fi
git -C "$WORK" checkout -q --force "$COMMIT"
[ -d "$WORK/node_modules" ] || (cd "$WORK" && npm ci --no-audit --no-fund --loglevel=error)
# Docker, tootctl and Redis give way to Rookery's admin command line.
cp "$HERE/adapter/rookery.ts" "$WORK/test-utils/services/rookery.ts"
cp "$HERE/adapter/vitest-global-setup.ts" "$HERE/adapter/vitest-environment.ts" "$WORK/test-utils/"
cp "$HERE/adapter/vitest-polyfills.ts" "$WORK/test-utils/setup-files/"
rm -rf "$WORK/node_modules/.cache/masto"

export DATA_DIR
DATA_DIR=$(mktemp -d /tmp/rookery-masto-data.XXXXXX)
# As Mastodon's development environment, which the suite is written for:
# e-mail domains are not looked up in DNS (the suite signs up @example.com,
# whose null MX Mastodon's production check refuses too).
export ORIGIN="$MASTO_URL" PORT RATE_LIMITS=off REQUIRE_EMAIL_CONFIRMATION=true EMAIL_DOMAIN_CHECK=false
(cd "$ROOT" && exec deno task -q start) > "$DATA_DIR/server.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null; wait $SERVER 2>/dev/null; rm -rf "$DATA_DIR"' EXIT
until curl -sf -o /dev/null "$MASTO_URL/api/v1/instance"; do
  kill -0 $SERVER 2>/dev/null || { cat "$DATA_DIR/server.log"; exit 1; }
  sleep 0.3
done
(cd "$ROOT" && deno task -q admin account create admin --email admin@example.com \
  --role owner --confirmed --approved --allow-reserved > /dev/null)

# Node 20 has WebSocket behind a flag; Node 22 has it on.
if [ "$(node -p 'process.versions.node.split(".")[0]')" -lt 22 ]; then
  export NODE_OPTIONS="--experimental-websocket ${NODE_OPTIONS:-}"
fi
cd "$WORK" && npx vitest run --project e2e --testTimeout=20000 "$@"
