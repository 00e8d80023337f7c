#!/usr/bin/env bash
# What a join costs the requests: three nodes holding KEYS keys (RF 3) take one open-loop load at RATE
# req/s (ack=2&from=3, OP) from one generator. After its WARMUP_S and QUIET_S quiet seconds a fourth
# node starts with --join and joins through the first, the keys it gains streamed to it at the default
# rate; the load goes on until the join is done (the newcomer `normal` in /v0/cluster) and AFTER_S
# seconds more. Prints the join's time, the requests that failed over the whole run, and the p99 of
# the load's one-second windows: the median and the worst of the quiet phase, of the join (from the
# newcomer's start to 2 s after it is `normal`) and of what follows, with their ratios to the quiet
# median. Comparing phases of one run keeps the generator warm throughout: a fresh generator JVM
# compiles its own code for seconds, which would be measured as the join's.
# WARM_TRANSITION=1 first runs a join and a decommission of the fourth node under the same load, so that
# the measured join is not the first transition the three nodes' JVMs compile code for (a node's first
# stream, pending writes and cleanup take its JIT compiler seconds of CPU: on shared cores, the others').
# NEWCOMER_NICE runs the fourth node at that nice value: on one machine shared by every node, a fresh
# JVM's warm-up otherwise takes the cores of the three it joins, which a node on a machine of its own
# would not. Stops every process it started; KEEP=1 keeps the nodes' logs and the load's windows.
#
#   kv-bench/scripts/join-latency.sh                                        # 1M keys, PUT at 5000/s
#   KEYS=100000 RATE=2000 QUIET_S=10 OP=get kv-bench/scripts/join-latency.sh   # a quick run
set -euo pipefail

cd "$(dirname "$0")/../.."
KEYS=${KEYS:-1000000}
RATE=${RATE:-5000}
OP=${OP:-put}
WARMUP_S=${WARMUP_S:-10}  # a fresh generator takes seconds to reach its rate
QUIET_S=${QUIET_S:-30}
AFTER_S=${AFTER_S:-15}
JOIN_LIMIT_S=${JOIN_LIMIT_S:-90}  # also how long the load runs past the quiet phase
WARM_TRANSITION=${WARM_TRANSITION:-0}
CONNECTIONS=${CONNECTIONS:-64}
NODE_FLAGS=${NODE_FLAGS:---event-loops 1 --storage-threads 1 --transport nio --background-priority 19}  # nodes share the cores: docs/TUNING.md
NEWCOMER_NICE=${NEWCOMER_NICE:-0}
BASE_PORT=${BASE_PORT:-18480}
SERVER_JAR=${SERVER_JAR:-kv-server/target/kv-server.jar}
BENCH_JAR=${BENCH_JAR:-kv-bench/target/benchmarks.jar}
WORK=${WORK:-$(mktemp -d -t kvstore-join-latency.XXXXXX)}
mkdir -p "$WORK"

source kv-bench/scripts/processes.sh  # the working directory is the repository root
source kv-bench/scripts/results.sh

urls=()
for i in 0 1 2 3; do urls+=("http://127.0.0.1:$((BASE_PORT + i))"); require_free_port $((BASE_PORT + i)); done
seeds=$(IFS=,; echo "${urls[*]:0:3}")
node_pids=()
start_node() { # start_node INDEX NICE FLAGS...
  local port=$((BASE_PORT + $1))
  # shellcheck disable=SC2086 # NODE_FLAGS is a list of flags
  nice -n "$2" java -jar "$SERVER_JAR" --port "$port" --data-dir "$WORK/data-$port" --self "${urls[$1]}" \
    $NODE_FLAGS "${@:3}" >>"$WORK/node-$port.log" 2>&1 &
  pids+=($!)
  node_pids[$1]=$!
  wait_for_port "$port"
}
newcomer_state() {
  curl -s "${urls[0]}/v0/cluster" | python3 -c '
import json, sys
print(next((n["state"] for n in json.load(sys.stdin)["nodes"] if n["url"] == sys.argv[1]), "absent"))' "${urls[3]}"
}
join_newcomer() { # join_newcomer: starts the fourth node with --join and waits until it is normal
  start_node 3 "$NEWCOMER_NICE" --join "${urls[0]}"
  for _ in $(seq 1 $((JOIN_LIMIT_S * 5))); do
    [[ $(newcomer_state) == normal ]] && return 0
    sleep 0.2
  done
  echo "the fourth node was not normal within ${JOIN_LIMIT_S}s: raise JOIN_LIMIT_S" >&2
  return 1
}
load() { # load SECONDS [GENERATOR FLAGS...]: the open-loop load, in the background (load_pid)
  java -cp "$BENCH_JAR" io.kvstore.bench.load.LoadGenerator --targets "$seeds" --routing targets --ops "$OP" \
    --keys "$KEYS" --ack 2 --from 3 --rate "$RATE" --connections "$CONNECTIONS" --duration "$1" --warmup "$WARMUP_S" \
    "${@:2}" &
  load_pid=$!
  pids+=("$load_pid")
}

for i in 0 1 2; do start_node "$i" 0 --cluster "$seeds"; done
echo "preloading $KEYS keys" >&2
java -cp "$BENCH_JAR" io.kvstore.bench.load.LoadGenerator --targets "$seeds" --preload "$KEYS" \
  --connections "$CONNECTIONS" >"$WORK/preload.log" 2>&1
wait_idle "${node_pids[@]:0:3}"

if [[ $WARM_TRANSITION == 1 ]]; then
  echo "a first transition under the load: the fourth node joins, then is decommissioned" >&2
  load $((JOIN_LIMIT_S * 2)) >"$WORK/warm-load.log" 2>&1
  warm_load=$load_pid
  sleep "$WARMUP_S"
  join_newcomer
  curl -sf -X POST "${urls[3]}/v0/admin/decommission" >"$WORK/decommission.json"
  kill "${node_pids[3]}"
  wait "${node_pids[3]}" 2>/dev/null || true
  rm -rf "$WORK/data-$((BASE_PORT + 3))"
  mv "$WORK/node-$((BASE_PORT + 3)).log" "$WORK/first-join-node-$((BASE_PORT + 3)).log"
  kill "$warm_load"
  wait "$warm_load" 2>/dev/null || true
  wait_idle "${node_pids[@]:0:3}"
fi

load_s=$((QUIET_S + JOIN_LIMIT_S + AFTER_S))
load "$load_s" --interval-log "$WORK/windows.txt" --interval 1 >"$WORK/load.log" 2>"$WORK/load-progress.log"
until grep -q ' s  measure' "$WORK/load-progress.log" 2>/dev/null; do sleep 0.1; done
load_start=$(date +%s.%N)  # the end of the first measured second, within a second
since_load() { awk -v a="$load_start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a + 1 }'; }
sleep "$QUIET_S"
join_from=$(since_load)
join_newcomer
join_to=$(since_load)
join_s=$(awk -v a="$load_start" -v b="$(date +%s.%N)" -v from="$join_from" 'BEGIN { printf "%.1f", b - a + 1 - from }')
echo "$(date -u +%T) the fourth node is normal, ${join_s} s after its start" >&2
wait "$load_pid" || { echo "the load generator failed; see $WORK/load.log" >&2; exit 1; }

echo "Run $(date -u '+%Y-%m-%d %H:%M') UTC, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg);" \
  "KEYS=$KEYS OP=$OP RATE=$RATE QUIET_S=$QUIET_S WARM_TRANSITION=$WARM_TRANSITION NEWCOMER_NICE=$NEWCOMER_NICE; nodes: $NODE_FLAGS"
echo "The join took ${join_s} s from the newcomer's start."
echo
phase_table "$WORK/windows.txt" "quiet:0 $QUIET_S" "join:$join_from $((join_to + 2))" "after:$((join_to + 3)) 1000000"
grep -E '^(RESULT|status|errors)' "$WORK/load.log" || true
