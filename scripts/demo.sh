#!/bin/sh
# The README's first command: start the built-in simulator, backfill its
# history and sync up to now into ./data/ivsync.sqlite, then print the status.
set -eu
cd "$(dirname "$0")/.."
ivsync() { node bin/ivsync.js "$@"; }
# The arena cap the Dockerfile and the systemd unit set: glibc reads it only at start (docs/operations.md, "Memory").
MALLOC_ARENA_MAX=${MALLOC_ARENA_MAX:-2}
export MALLOC_ARENA_MAX

out=$(mktemp)
# Node directly (not through the function), so $! is the simulator itself.
node bin/ivsync.js simulate --port 0 --sessions 3000 --latency 20-80 --json >"$out" 2>&1 &
sim=$!
trap 'kill $sim 2>/dev/null || true; rm -f "$out"' EXIT INT TERM
i=0
until grep -q '"url"' "$out" 2>/dev/null; do
  i=$((i + 1)); [ $i -le 100 ] || { echo "simulator did not start" >&2; exit 1; }
  sleep 0.1
done
IVS_BASE_URL=$(sed -n 's/.*"url":"\([^"]*\)".*/\1/p' "$out")
IVS_API_TOKEN=test-token
export IVS_BASE_URL IVS_API_TOKEN

echo "== backfill of the simulator's year of history"
ivsync backfill --from 2025-09-01 --to 2026-09-22
echo "== sync up to now"
ivsync sync
echo "== status"
ivsync status
