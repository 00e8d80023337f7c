#!/usr/bin/env bash
# How nodes answer past their capacity: NODES nodes (1, or 3 with RF 3 and ack=2&from=3) with a HEAP
# heap each take a closed-loop load of OPS for CAP_S seconds, whose rate is their capacity; then an
# open-loop load at FACTOR times that rate over CONNECTIONS lanes for DURATION_S seconds. Prints each
# run's answers by status, the p99 of the 2xx answers, how soon the 503s came, and whether a node ran
# out of memory. Stops every process it started.
#
#   kv-bench/scripts/overload.sh                                   # one node, 100-byte PUTs
#   NODES=3 kv-bench/scripts/overload.sh                           # three nodes, RF 3
#   VALUE_SIZE=1048576 HEAP=128m CONNECTIONS=64 kv-bench/scripts/overload.sh   # 1 MB PUTs, small heap
set -euo pipefail

cd "$(dirname "$0")/../.."
NODES=${NODES:-1}
OPS=${OPS:-put}
KEYS=${KEYS:-1000000}
VALUE_SIZE=${VALUE_SIZE:-100}
HEAP=${HEAP:-256m}
FACTOR=${FACTOR:-2}
CAP_S=${CAP_S:-15}
DURATION_S=${DURATION_S:-20}
WARMUP_S=${WARMUP_S:-5}
CAP_CONNECTIONS=${CAP_CONNECTIONS:-64}
CONNECTIONS=${CONNECTIONS:-1024}
NODE_FLAGS=${NODE_FLAGS:---event-loops 1 --transport nio --anti-entropy-interval-s 0 --background-priority 19}
BASE_PORT=${BASE_PORT:-18480}
SERVER_JAR=${SERVER_JAR:-kv-server/target/kv-server.jar}
BENCH_JAR=${BENCH_JAR:-kv-bench/target/benchmarks.jar}
WORK=${WORK:-$(mktemp -d -t kvstore-overload.XXXXXX)}
mkdir -p "$WORK"

source kv-bench/scripts/processes.sh  # the working directory is the repository root

urls=()
for ((i = 0; i < NODES; i++)); do urls+=("http://127.0.0.1:$((BASE_PORT + i))"); done
cluster=$(IFS=,; echo "${urls[*]}")
for ((i = 0; i < NODES; i++)); do
  port=$((BASE_PORT + i))
  require_free_port "$port"
  # shellcheck disable=SC2086 # NODE_FLAGS is a list of flags
  java -Xmx"$HEAP" -jar "$SERVER_JAR" --port "$port" --data-dir "$WORK/data-$port" --cluster "$cluster" \
    --self "${urls[$i]}" $NODE_FLAGS >>"$WORK/node-$port.log" 2>&1 &
  pids+=("$!")
done
for ((i = 0; i < NODES; i++)); do wait_for_port $((BASE_PORT + i)); done
quorum=()
[[ $NODES == 3 ]] && quorum=(--ack 2 --from 3)

load() { # load NAME ARGS...: one generator run, its report in $WORK/NAME.log
  local name=$1
  shift
  java -cp "$BENCH_JAR" io.kvstore.bench.load.LoadGenerator --targets "$cluster" --routing targets \
    --ops "$OPS" --keys "$KEYS" --value-size "$VALUE_SIZE" "${quorum[@]}" --warmup "$WARMUP_S" "$@" \
    >"$WORK/$name.log" 2>"$WORK/$name-progress.log"
}
load capacity --connections "$CAP_CONNECTIONS" --duration "$CAP_S"
capacity=$(awk '/^RESULT/ { for (i = 1; i <= NF; i++) if ($i ~ /^rps=/) print substr($i, 5) }' "$WORK/capacity.log")
rate=$(awk -v c="$capacity" -v f="$FACTOR" 'BEGIN { printf "%.0f", c * f }')
load overload --connections "$CONNECTIONS" --duration "$DURATION_S" --rate "$rate"
echo "nodes=$NODES heap=$HEAP ops=$OPS value=$VALUE_SIZE B capacity=$capacity req/s; open loop at $rate req/s over $CONNECTIONS lanes"
for run in capacity overload; do
  echo "-- $run"
  grep -E '^(requests|status|errors|2xx latency|503 answered)' "$WORK/$run.log"
done
oom=$(cat "$WORK"/node-*.log | grep -c OutOfMemoryError || true)
echo "OutOfMemoryError in node logs: $oom"
for url in "${urls[@]}"; do
  echo "$url: $(curl -s "$url/metrics" | grep -E '^kv_requests_shed_total' | tr '\n' ' ')"
done
