#!/usr/bin/env bash
# Pastes the README's "Try a call without Twilio" block into a fresh shell
# (no inherited environment, a new embedded database) against the built app,
# and checks what the README says it shows: the backend's TwiML played, every
# request answered 2xx, a usage record of 2 billed minutes, and live call control: an outbound call
# transferred (the backend receives call.transferred) and another hung up through the API.
# It also checks that the block's stop step (step 7) stops everything the block started: a
# simulator left behind holds its port, and the next try talks to it and fails far from the cause.
set -euo pipefail
cd "$(dirname "$0")/.."

# Routekit, the Twilio simulator and the stand-in backend of the README's block.
PORTS=(3000 3001 4000)

# What listens on a TCP port ("pid 123: node …"), or nothing when the port is free.
holder() {
  local line pid
  line=$(ss -Hltnp "sport = :$1")
  [ -n "$line" ] || return 0
  if [[ $line =~ pid=([0-9]+) ]]; then
    pid=${BASH_REMATCH[1]}
    echo "pid $pid: $(ps -o args= -p "$pid" || echo '(exited)')"
  else
    echo "a process this user cannot see ($line)"
  fi
}

for port in "${PORTS[@]}"; do
  held=$(holder "$port")
  if [ -n "$held" ]; then
    echo "port $port is taken, and the walk-through needs it; held by $held" >&2
    exit 1
  fi
done

work=$(mktemp -d)
session=""
# Everything the walk-through started, however deep beneath npm and tsx, and even once re-parented
# to init: its processes share the session the walk-through runs in (below), which no one else has.
stop_walkthrough() {
  [ -n "$session" ] || return 0
  pkill -TERM -s "$session" 2>/dev/null || true
  for _ in $(seq 50); do pgrep -s "$session" >/dev/null || return 0; sleep 0.5; done
  pkill -KILL -s "$session" 2>/dev/null || true
}
trap 'stop_walkthrough; rm -rf "$work"' EXIT

awk '/^### Try a call without Twilio/{f=1} f&&/^```sh/{b=1;next} b&&/^```/{exit} b' README.md > "$work/walkthrough.sh"
[ -s "$work/walkthrough.sh" ] || { echo "README block not found" >&2; exit 1; }
# setsid makes the walk-through the leader of a new session whose id is its pid: this script runs
# without job control, so its background child is no process group leader and setsid need not fork.
setsid env -i HOME="$HOME" PATH="$PATH" TERM=dumb DATA_DIR="$work/data" \
  timeout 180 bash -c "source '$work/walkthrough.sh'" > "$work/out.log" 2>&1 &
session=$!
if ! wait "$session"; then cat "$work/out.log"; echo "the walk-through failed" >&2; exit 1; fi

check() { grep -q -- "$1" "$work/out.log" || { cat "$work/out.log"; echo "missing from the walk-through's output: $1" >&2; exit 1; }; }
check "Hello from my backend"
check "Routekit answered every request with 2xx"
check '"billedMinutes":2'
check '"type":"call.transferred"'
check '"command":"hangup"'

# Step 7 has sent its signals; Routekit takes its drain (3 s) and at most its shutdown grace (20 s) to exit.
for _ in $(seq 60); do pgrep -s "$session" >/dev/null || break; sleep 0.5; done
if pgrep -s "$session" >/dev/null; then
  echo "the README's stop step (step 7) left these running:" >&2
  ps -o pid=,args= -s "$session" >&2
  exit 1
fi
for port in "${PORTS[@]}"; do
  held=$(holder "$port")
  if [ -n "$held" ]; then
    echo "port $port is still taken after the README's stop step (step 7); held by $held" >&2
    exit 1
  fi
done
echo "README walk-through: OK"
