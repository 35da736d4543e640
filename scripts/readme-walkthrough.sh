#!/usr/bin/env bash
# Pastes the README's two runnable blocks, each into a fresh shell (no inherited environment, a new
# embedded database) against the built app, and checks what the README says each shows:
# - "Your first call in five minutes": the SDK's example handler answers a call through
#   `routekit listen` (no tunnel), and verifies call.started and call.ended with the SDK;
# - "Try a call without Twilio": the backend's TwiML played, every request answered 2xx, a usage
#   record of 2 billed minutes, and live call control: an outbound call transferred (the backend
#   receives call.transferred) and another hung up through the API.
# It also checks that each block's stop step stops everything the block started: a process left
# behind holds its port, and the next try talks to it and fails far from the cause.
set -euo pipefail
cd "$(dirname "$0")/.."

# Routekit, the Twilio simulator and the stand-in backend (or the example handler) of the README's blocks.
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
# Everything a block started, however deep beneath npm and tsx, and even once re-parented to init:
# its processes share the session the block runs in (below), which no one else has.
stop_walkthrough() {
  [ -n "$session" ] || return 0
  pkill -TERM -s "$session" 2>/dev/null || true
  for _ in $(seq 50); do pgrep -s "$session" >/dev/null || return 0; sleep 0.5; done
  pkill -KILL -s "$session" 2>/dev/null || true
}
trap 'stop_walkthrough; rm -rf "$work"' EXIT

# run_block <README heading> <name> <expected output>…: pastes the first ```sh block under the heading
# into a fresh shell, checks its output holds each expected string, and that its stop step left nothing.
run_block() {
  local heading=$1 name=$2
  shift 2
  local script="$work/$name.sh" log="$work/$name.log"
  awk -v h="$heading" 'index($0, h) == 1 {f=1} f&&/^```sh/{b=1;next} b&&/^```/{exit} b' README.md > "$script"
  [ -s "$script" ] || { echo "README block not found: $heading" >&2; exit 1; }
  # setsid makes the block the leader of a new session whose id is its pid: this script runs without
  # job control, so its background child is no process group leader and setsid need not fork.
  setsid env -i HOME="$HOME" PATH="$PATH" TERM=dumb DATA_DIR="$work/data-$name" \
    timeout 180 bash -c "source '$script'" > "$log" 2>&1 &
  session=$!
  if ! wait "$session"; then cat "$log"; echo "the README's $name block failed" >&2; exit 1; fi
  local want
  for want in "$@"; do
    grep -q -- "$want" "$log" || { cat "$log"; echo "missing from the $name block's output: $want" >&2; exit 1; }
  done
  # The stop step has sent its signals; Routekit takes its drain (3 s) and at most its shutdown grace (20 s) to exit.
  for _ in $(seq 60); do pgrep -s "$session" >/dev/null || break; sleep 0.5; done
  if pgrep -s "$session" >/dev/null; then
    echo "the README's $name block's stop step left these running:" >&2
    ps -o pid=,args= -s "$session" >&2
    exit 1
  fi
  for port in "${PORTS[@]}"; do
    held=$(holder "$port")
    if [ -n "$held" ]; then
      echo "port $port is still taken after the $name block's stop step; held by $held" >&2
      exit 1
    fi
  done
  session=""
  echo "README $name block: OK"
}

run_block "### Your first call in five minutes" quick-start \
  "Ready" \
  "Hello from my laptop" \
  "verified call.started" \
  "verified call.ended"

run_block "### Try a call without Twilio" simulator \
  "Hello from my backend" \
  "Routekit answered every request with 2xx" \
  '"billedMinutes":2' \
  '"type":"call.transferred"' \
  '"command":"hangup"'
echo "README walk-through: OK"
