#!/usr/bin/env bash
# Pastes the README's "Try a call without Twilio" block into a fresh shell
# (no inherited environment, a new embedded database) against the built app,
# and checks what the README says it shows: the backend's TwiML played, every
# request answered 2xx, a usage record of 2 billed minutes, and live call control: an outbound call
# transferred (the backend receives call.transferred) and another hung up through the API.
set -euo pipefail
cd "$(dirname "$0")/.."
if curl -sf localhost:3000/api/health >/dev/null 2>&1; then echo "port 3000 is taken; the walk-through needs it" >&2; exit 1; fi
work=$(mktemp -d)
trap 'pkill -f "dist/server.mjs" -P $$ 2>/dev/null || true; pkill -f "twilio-simulator/cli.ts serve" -P $$ 2>/dev/null || true; rm -rf "$work"' EXIT
awk '/^### Try a call without Twilio/{f=1} f&&/^```sh/{b=1;next} b&&/^```/{exit} b' README.md > "$work/walkthrough.sh"
[ -s "$work/walkthrough.sh" ] || { echo "README block not found" >&2; exit 1; }
env -i HOME="$HOME" PATH="$PATH" TERM=dumb DATA_DIR="$work/data" \
  timeout 180 bash -c "source '$work/walkthrough.sh'" > "$work/out.log" 2>&1 || { cat "$work/out.log"; echo "the walk-through failed" >&2; exit 1; }
check() { grep -q -- "$1" "$work/out.log" || { cat "$work/out.log"; echo "missing from the walk-through's output: $1" >&2; exit 1; }; }
check "Hello from my backend"
check "Routekit answered every request with 2xx"
check '"billedMinutes":2'
check '"type":"call.transferred"'
check '"command":"hangup"'
echo "README walk-through: OK"
