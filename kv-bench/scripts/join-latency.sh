#!/usr/bin/env bash
# What a join costs the requests: three nodes holding KEYS keys take an open-loop load at RATE req/s
# (ack=2&from=3, OP) for DURATION seconds before a join, then the same load again for DURATION seconds
# during which a fourth node joins through the first (--join) once the load's warm-up is over, the keys
# it gains streamed to it at the default rate. Prints the latency of both runs and how long the join
# took (until /v0/cluster shows the newcomer `normal`); the second run's figures include the whole join
# only if it ended within the run, which the script checks.
# NEWCOMER_NICE runs the fourth node at that nice value: on one machine shared by every node, a fresh
# JVM's warm-up (JIT compilation) otherwise takes the cores of the three it joins, which a node on a
# machine of its own would not.
# Stops every process it started; KEEP=1 keeps the nodes' logs and the load's second-by-second progress.
#
#   kv-bench/scripts/join-latency.sh                                   # 1M keys, PUT at 5000/s
#   KEYS=100000 RATE=2000 DURATION=10 OP=get kv-bench/scripts/join-latency.sh  # a quick run
set -euo pipefail

cd "$(dirname "$0")/../.."
KEYS=${KEYS:-1000000}
RATE=${RATE:-5000}
OP=${OP:-put}
DURATION=${DURATION:-30}
JOIN_LIMIT_S=${JOIN_LIMIT_S:-900}
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
for i in 0 1 2 3; do urls+=("http://127.0.0.1:$((BASE_PORT + i))"); done
seeds=$(IFS=,; echo "${urls[*]:0:3}")
start_node() { # start_node INDEX NICE FLAGS...
  local port=$((BASE_PORT + $1))
  # shellcheck disable=SC2086 # NODE_FLAGS is a list of flags
  nice -n "$2" java -jar "$SERVER_JAR" --port "$port" --data-dir "$WORK/data-$port" --self "${urls[$1]}" \
    $NODE_FLAGS "${@:3}" >"$WORK/node-$port.log" 2>&1 &
  pids+=($!)
  wait_for_port "$port"
}
for i in 0 1 2; do start_node "$i" 0 --cluster "$seeds"; done
echo "preloading $KEYS keys" >&2
java -cp "$BENCH_JAR" io.kvstore.bench.load.LoadGenerator --targets "$seeds" --preload "$KEYS" \
  --connections "$CONNECTIONS" >>"$WORK/progress.log" 2>&1
wait_idle "${pids[@]}"

load() { # load DURATION -> the generator's RESULT line
  java -cp "$BENCH_JAR" io.kvstore.bench.load.LoadGenerator --targets "$seeds" --routing targets --ops "$OP" \
    --keys "$KEYS" --ack 2 --from 3 --rate "$RATE" --connections "$CONNECTIONS" --duration "$1" --warmup 5 \
    2>>"$WORK/progress.log" | grep '^RESULT'
}
newcomer_state() {
  curl -s "${urls[0]}/v0/cluster" | python3 -c '
import json, sys
print(next((n["state"] for n in json.load(sys.stdin)["nodes"] if n["url"] == sys.argv[1]), "absent"))' "${urls[3]}"
}

before=$(load "$DURATION")
echo "before the join: $before" >&2

load "$DURATION" >"$WORK/during.txt" &
load_pid=$!
sleep 5  # the generator's warm-up
start_node 3 "$NEWCOMER_NICE" --join "${urls[0]}"
joined_at=$(date +%s.%N)
join_s=""
while kill -0 "$load_pid" 2>/dev/null; do
  if [[ -z $join_s && $(newcomer_state) == normal ]]; then
    join_s=$(awk -v a="$joined_at" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
  fi
  sleep 0.2
done
wait "$load_pid"
during=$(cat "$WORK/during.txt")
if [[ -z $join_s ]]; then
  echo "the join had not ended when the measured run did: raise DURATION" >&2
  exit 1
fi

echo "Run $(date -u '+%Y-%m-%d %H:%M') UTC, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg);" \
  "KEYS=$KEYS OP=$OP RATE=$RATE DURATION=$DURATION NEWCOMER_NICE=$NEWCOMER_NICE; nodes: $NODE_FLAGS"
echo
echo "| run | join took | req/s | p50 ms | p99 ms | p99.9 ms | max ms | errors/non-2xx |"
echo "|---|---|---|---|---|---|---|---|"
row() { echo "| $1 | $2 | $(field rps "$3") | $(field p50 "$3") | $(field p99 "$3") | $(field p999 "$3") | $(field max "$3") | $(field errors "$3")/$(field non2xx "$3") |"; }
row "before the join" "" "$before"
row "during the join" "${join_s} s" "$during"
