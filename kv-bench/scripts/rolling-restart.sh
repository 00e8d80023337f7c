#!/usr/bin/env bash
# A rolling restart under quorum traffic: three nodes (RF 3), KEYS keys preloaded, an open-loop load of
# PUT and GET (half each) at RATE req/s with ack=2&from=3 through the Java client (each request routed
# to a replica of its key, as an application would send it). After QUIET_S seconds each node in turn
# gets SIGTERM, exits, restarts on its data directory with the same flags, and the script waits until
# both peers list it up again, then SETTLE_S seconds more. Prints the requests that failed (errors and
# non-2xx answers over the whole run) and the p99 of the load's one-second windows after its WARMUP_S:
# the median and the worst of the quiet phase, of the stops (from each SIGTERM until 2 s after the
# process exited) and of the starts (from each restart until 5 s after both peers list the node up),
# with their ratios to the quiet median. Fails if a node does not stop or come back within
# RESTART_LIMIT_S.
#
#   kv-bench/scripts/rolling-restart.sh                     # 4,000 req/s, about 2 minutes
#   RATE=1000 QUIET_S=10 SETTLE_S=5 kv-bench/scripts/rolling-restart.sh   # a quick run
set -euo pipefail

cd "$(dirname "$0")/../.."
RATE=${RATE:-4000}
KEYS=${KEYS:-100000}
VALUE_SIZE=${VALUE_SIZE:-100}
CONNECTIONS=${CONNECTIONS:-32}
QUIET_S=${QUIET_S:-30}
SETTLE_S=${SETTLE_S:-15}
WARMUP_S=${WARMUP_S:-10}  # a fresh generator takes seconds to reach its rate
RESTART_LIMIT_S=${RESTART_LIMIT_S:-60}
NODE_FLAGS=${NODE_FLAGS:---event-loops 1 --storage-threads 1 --transport nio --background-priority 19}  # nodes share the cores: docs/TUNING.md
BASE_PORT=${BASE_PORT:-18680}
SERVER_JAR=${SERVER_JAR:-kv-server/target/kv-server.jar}
BENCH_JAR=${BENCH_JAR:-kv-bench/target/benchmarks.jar}
WORK=${WORK:-$(mktemp -d -t kvstore-rolling-restart.XXXXXX)}
mkdir -p "$WORK"

source kv-bench/scripts/processes.sh  # the working directory is the repository root
source kv-bench/scripts/results.sh

urls=()
for i in 0 1 2; do urls+=("http://127.0.0.1:$((BASE_PORT + i))"); require_free_port $((BASE_PORT + i)); done
cluster=$(IFS=,; echo "${urls[*]}")
node_pids=()
start_node() { # start_node INDEX
  local port=$((BASE_PORT + $1))
  # shellcheck disable=SC2086 # NODE_FLAGS is a list of flags
  start_kv_node "$port" --data-dir "$WORK/data-$port" --cluster "$cluster" --self "${urls[$1]}" \
    --replication-factor 3 $NODE_FLAGS
  node_pids[$1]=$node_pid
  wait_for_port "$port"
}
peer_state() { # peer_state WATCHER PEER -> the state WATCHER's /v0/status gives PEER
  curl -s "${urls[$1]}/v0/status" | python3 -c '
import json, sys
print([p for p in json.load(sys.stdin)["peers"] if p["url"] == sys.argv[1]][0]["state"])' "${urls[$2]}"
}
for i in 0 1 2; do start_node "$i"; done

echo "preloading $KEYS keys" >&2
java -cp "$BENCH_JAR" io.kvstore.bench.load.LoadGenerator --targets "$cluster" --preload "$KEYS" \
  --value-size "$VALUE_SIZE" --ack 2 --from 3 >"$WORK/preload.log" 2>&1
wait_idle "${node_pids[@]}"

load_s=$((QUIET_S + 3 * (SETTLE_S + 20) + 10))
java -cp "$BENCH_JAR" io.kvstore.bench.load.LoadGenerator --targets "$cluster" --routing replica \
  --ops put=1,get=1 --keys "$KEYS" --value-size "$VALUE_SIZE" --ack 2 --from 3 --rate "$RATE" \
  --connections "$CONNECTIONS" --duration "$load_s" --warmup "$WARMUP_S" --interval-log "$WORK/windows.txt" --interval 1 \
  >"$WORK/load.log" 2>"$WORK/load-progress.log" &
load_pid=$!
pids+=("$load_pid")
until grep -q ' s  measure' "$WORK/load-progress.log" 2>/dev/null; do sleep 0.1; done
load_start=$(date +%s.%N)  # the end of the first measured second, within a second
since_load() { awk -v a="$load_start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a + 1 }'; }

sleep "$QUIET_S"
stops=()
starts=()
for i in 0 1 2; do
  from=$(since_load)
  kill -TERM "${node_pids[$i]}"
  for _ in $(seq 1 $((RESTART_LIMIT_S * 10))); do kill -0 "${node_pids[$i]}" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "${node_pids[$i]}" 2>/dev/null; then echo "node $i did not stop within ${RESTART_LIMIT_S}s" >&2; exit 1; fi
  exited=$(since_load)
  echo "$(date -u +%T) node $i stopped after SIGTERM ($((exited - from)) s)" >&2
  stops+=("$from $((exited + 2))")
  start_node "$i"
  for _ in $(seq 1 $((RESTART_LIMIT_S * 10))); do
    [[ $(peer_state $(((i + 1) % 3)) "$i") == up && $(peer_state $(((i + 2) % 3)) "$i") == up ]] && break
    sleep 0.1
  done
  back=$(since_load)
  echo "$(date -u +%T) node $i serving again, its peers list it up ($((back - from)) s after SIGTERM)" >&2
  starts+=("$((exited + 1)) $((back + 5))")
  sleep "$SETTLE_S"
done
wait "$load_pid" || { echo "the load generator failed; see $WORK/load.log" >&2; exit 1; }

echo "Run $(date -u '+%Y-%m-%d %H:%M') UTC, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg);" \
  "RATE=$RATE KEYS=$KEYS VALUE_SIZE=$VALUE_SIZE QUIET_S=$QUIET_S SETTLE_S=$SETTLE_S; nodes: $NODE_FLAGS"
echo
phase_table "$WORK/windows.txt" "quiet:0 $QUIET_S" "stops:${stops[*]}" "starts:${starts[*]}"
grep -E '^(RESULT|status|errors)' "$WORK/load.log" || true
