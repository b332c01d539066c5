#!/usr/bin/env bash
# Starts the single-machine shape: the Temporal dev server (with its Web UI
# and a persistent SQLite file under the data directory) and `dqs dev` (API
# and worker in one process). Ctrl-C stops both.
set -euo pipefail

TEMPORAL=${TEMPORAL:?set TEMPORAL to the Temporal CLI binary (make run does)}
DATA_DIR=${DQS_DATA_DIR:-./data}
TEMPORAL_PORT=${DQS_TEMPORAL_PORT:-7233}
TEMPORAL_UI_PORT=${DQS_TEMPORAL_UI_PORT:-8233}
export DQS_TEMPORAL_ADDRESS=${DQS_TEMPORAL_ADDRESS:-127.0.0.1:$TEMPORAL_PORT}
export DQS_TEMPORAL_UI_URL=${DQS_TEMPORAL_UI_URL:-http://localhost:$TEMPORAL_UI_PORT}
mkdir -p "$DATA_DIR"

healthy() { "$TEMPORAL" operator cluster health --address "$DQS_TEMPORAL_ADDRESS" >/dev/null 2>&1; }

temporal_pid=""
cleanup() {
  trap - EXIT INT TERM
  if [ -n "$temporal_pid" ] && kill -0 "$temporal_pid" 2>/dev/null; then
    echo "Stopping Temporal…"
    kill -INT "$temporal_pid" 2>/dev/null || true
    wait "$temporal_pid" 2>/dev/null || true
  fi
}
trap cleanup EXIT INT TERM

if healthy; then
  echo "Using the Temporal server already running at $DQS_TEMPORAL_ADDRESS"
else
  echo "Starting Temporal (log: $DATA_DIR/temporal.log)…"
  "$TEMPORAL" server start-dev \
    --db-filename "$DATA_DIR/temporal.db" \
    --ip 127.0.0.1 --port "$TEMPORAL_PORT" --ui-port "$TEMPORAL_UI_PORT" \
    --log-level warn >"$DATA_DIR/temporal.log" 2>&1 &
  temporal_pid=$!
  for _ in $(seq 1 120); do
    healthy && break
    if ! kill -0 "$temporal_pid" 2>/dev/null; then
      echo "Temporal exited; see $DATA_DIR/temporal.log" >&2
      exit 1
    fi
    sleep 0.5
  done
  healthy || { echo "Temporal did not become healthy in 60s; see $DATA_DIR/temporal.log" >&2; exit 1; }
fi

echo "Temporal UI: $DQS_TEMPORAL_UI_URL"
./bin/dqs dev &
dqs_pid=$!
# Forward Ctrl-C/TERM to dqs so it shuts down gracefully, then stop Temporal.
trap 'kill -TERM "$dqs_pid" 2>/dev/null || true' INT TERM
wait "$dqs_pid" || true
wait "$dqs_pid" 2>/dev/null || true
cleanup
