#!/usr/bin/env bash
# The standard HTTP suite on this machine: the ceiling server, a single node, a 3-node cluster
# (ack/from 1/1 and 2/3); PUT and GET; the closed-loop maximum, then open loop at half of it.
# Writes a Markdown table between the http-suite markers of docs/BENCHMARKS.md and stops every
# process it started.
#
#   kv-bench/scripts/http-suite.sh            # 5M keys preloaded, 30 s per measurement
#   KEYS=200000 DURATION=5 WARMUP=3 kv-bench/scripts/http-suite.sh   # a quick run
#
# The generator sends through KvClient: to the ceiling round-robin (--routing targets), to the nodes
# routed to a replica of each key unless a row says otherwise.
# The generator measures closed loops on java.nio and open loops on Netty's epoll transport (its
# defaults; docs/TUNING.md, "Load generator: transport and timers").
# The three cluster nodes share this machine's cores with each other and the generator, so each runs
# with CLUSTER_FLAGS (default: one event loop and one storage thread per node, and java.nio, whose tail
# is shorter than the native transport's when the nodes share cores: docs/TUNING.md, "Transport:
# native epoll against java.nio").
# The ceiling runs with one event loop per core, as the node's defaults, and with one; the higher of
# the two is this machine's ceiling. The single node is measured on one store with the server's
# defaults (one event loop per core) and, restarted, with ONE_LOOP_FLAGS (default: one event loop,
# since the generator takes one of a 2-core machine's cores; docs/TUNING.md, "Event loops on a
# 2-core machine"). GETs run before PUTs, so they read the preloaded store rather than one still
# compacting the PUT rows' writes, and only once the nodes are idle after the preload (wait_idle):
# their flushes and compactions run at a low CPU priority and would otherwise still be running during
# the first GET row.
set -euo pipefail

cd "$(dirname "$0")/../.."
KEYS=${KEYS:-5000000}
DURATION=${DURATION:-30}
WARMUP=${WARMUP:-10}
CLUSTER_WARMUP=${CLUSTER_WARMUP:-30}  # seconds of GETs through every node before the cluster's rows
CONNECTIONS=${CONNECTIONS:-64}
VALUE_SIZE=${VALUE_SIZE:-100}
BASE_PORT=${BASE_PORT:-18080}
# Three JVMs on the cores of one: no core is left idle, so background threads run at nice 19, not
# SCHED_IDLE, under which they starve and hold up their JVM's safepoints (docs/TUNING.md).
CLUSTER_FLAGS=${CLUSTER_FLAGS:---event-loops 1 --storage-threads 1 --transport nio --background-priority 19}
ONE_LOOP_FLAGS=${ONE_LOOP_FLAGS:---event-loops 1}
WORK=${WORK:-$(mktemp -d -t kvstore-suite.XXXXXX)}
OUT=${OUT:-docs/BENCHMARKS.md}
SERVER_JAR=${SERVER_JAR:-kv-server/target/kv-server.jar}
BENCH_JAR=${BENCH_JAR:-kv-bench/target/benchmarks.jar}
# JVM options of every node (not of the generator or the ceiling), e.g. NODE_JAVA_OPTS=-XX:+UseShenandoahGC
NODE_JAVA_OPTS=${NODE_JAVA_OPTS:-}
mkdir -p "$WORK"

if [[ ! -f $SERVER_JAR || ! -f $BENCH_JAR ]]; then
  ./mvnw -B -ntp -q -DskipTests package
fi

source kv-bench/scripts/processes.sh  # the working directory is the repository root
source kv-bench/scripts/results.sh

load() { # load TARGETS ARGS... -> prints the RESULT line
  local out
  out=$(java -cp "$BENCH_JAR" io.kvstore.bench.load.LoadGenerator --targets "$1" "${@:2}" \
    --connections "$CONNECTIONS" --value-size "$VALUE_SIZE" 2>>"$WORK/progress.log") || true
  if ! grep '^RESULT' <<<"$out"; then
    echo "no result from: LoadGenerator --targets $1 ${*:2}" >&2
    echo "$out" >&2
    return 1
  fi
}


rows=()
measure() { # measure LABEL TARGETS OPS [ARGS...]
  local label=$1 targets=$2 ops=$3
  local max half open
  max=$(load "$targets" --ops "$ops" --keys "$KEYS" --duration "$DURATION" --warmup "$WARMUP" "${@:4}")
  half=$(awk -v r="$(field rps "$max")" 'BEGIN { printf "%d", r / 2 }')
  open=$(load "$targets" --ops "$ops" --keys "$KEYS" --duration "$DURATION" --warmup "$WARMUP" --rate "$half" "${@:4}")
  rows+=("| $label | ${ops^^} | $(field rps "$max") | $(field errors "$max")/$(field non2xx "$max") | $half | $(field p50 "$open") | $(field p99 "$open") | $(field p999 "$open") | $(field max "$open") |")
  echo "${rows[-1]}"
}

start_ceiling() { # start_ceiling [FLAGS...]
  java -cp "$BENCH_JAR" io.kvstore.bench.load.CeilingServer --port "$BASE_PORT" "$@" >"$WORK/ceiling.log" 2>&1 &
  pids+=($!)
  wait_for_port "$BASE_PORT"
}

start_node() { # start_node PORT CLUSTER [FLAGS...]
  local port=$1 cluster=$2
  local args=(--port "$port" --data-dir "$WORK/data-$port")
  [[ -n $cluster ]] && args+=(--cluster "$cluster" --self "http://127.0.0.1:$port")
  # shellcheck disable=SC2086 # NODE_JAVA_OPTS is a list of options
  java $NODE_JAVA_OPTS -jar "$SERVER_JAR" "${args[@]}" "${@:3}" >"$WORK/node-$port.log" 2>&1 &
  pids+=($!)
  wait_for_port "$port"
}

echo "ceiling server"
start_ceiling
measure "ceiling (bare Vert.x)" "http://127.0.0.1:$BASE_PORT" put --routing targets
measure "ceiling (bare Vert.x)" "http://127.0.0.1:$BASE_PORT" get --routing targets
stop_all
start_ceiling --event-loops 1
measure "ceiling, 1 event loop" "http://127.0.0.1:$BASE_PORT" put --routing targets
measure "ceiling, 1 event loop" "http://127.0.0.1:$BASE_PORT" get --routing targets
stop_all

echo "single node, preloading $KEYS keys"
single="http://127.0.0.1:$((BASE_PORT + 1))"
start_node $((BASE_PORT + 1)) ""
load "$single" --preload "$KEYS" --threads 1 >/dev/null
wait_idle "${pids[@]}"
measure "single node" "$single" get
stop_all
# shellcheck disable=SC2086 # ONE_LOOP_FLAGS is a list of flags
start_node $((BASE_PORT + 1)) "" $ONE_LOOP_FLAGS
measure "single node, 1 event loop" "$single" get
stop_all
start_node $((BASE_PORT + 1)) ""
measure "single node" "$single" put
stop_all
# shellcheck disable=SC2086
start_node $((BASE_PORT + 1)) "" $ONE_LOOP_FLAGS
measure "single node, 1 event loop" "$single" put
stop_all

echo "3 nodes, preloading $KEYS keys with ack=3&from=3"
cluster="http://127.0.0.1:$((BASE_PORT + 2)),http://127.0.0.1:$((BASE_PORT + 3)),http://127.0.0.1:$((BASE_PORT + 4))"
# shellcheck disable=SC2086 # CLUSTER_FLAGS is a list of flags
for i in 2 3 4; do start_node $((BASE_PORT + i)) "$cluster" $CLUSTER_FLAGS; done
# Every replica gets every key, so that reads of several replicas find them in agreement rather than
# measuring read repair.
load "$cluster" --preload "$KEYS" --ack 3 --from 3 >/dev/null
wait_idle "${pids[@]}"
# The preload never read through another node, and fresh nodes forward GETs to the key's owner several
# times slower for their first 15-20 s of it, longer than a row's warm-up: forward GETs unmeasured first.
load "$cluster" --ops get --keys "$KEYS" --duration "$CLUSTER_WARMUP" --warmup 1 --ack 1 --from 1 --routing targets >/dev/null
# Each setting twice: requests spread over the nodes (any node coordinates, as through a load
# balancer), then routed by KvClient to a replica of their key.
for routing in targets replica; do
  label=$([[ $routing == targets ]] && echo "any node" || echo "client routing")
  measure "3 nodes, ack=1 from=1, $label" "$cluster" get --ack 1 --from 1 --routing $routing
  measure "3 nodes, ack=1 from=1, $label" "$cluster" put --ack 1 --from 1 --routing $routing
  measure "3 nodes, ack=2 from=3, $label" "$cluster" get --ack 2 --from 3 --routing $routing
  measure "3 nodes, ack=2 from=3, $label" "$cluster" put --ack 2 --from 3 --routing $routing
done
stop_all

table=$(
  echo "<!-- http-suite:start -->"
  echo "Run $(date -u +%Y-%m-%d), $(nproc) cores, $(java -version 2>&1 | head -1); keys=$KEYS, value=$VALUE_SIZE B, $CONNECTIONS connections, ${DURATION}s per run after ${WARMUP}s warm-up."
  echo "Command: \`${NODE_JAVA_OPTS:+NODE_JAVA_OPTS=\"$NODE_JAVA_OPTS\" }KEYS=$KEYS DURATION=$DURATION WARMUP=$WARMUP kv-bench/scripts/http-suite.sh\` (1 event loop: $ONE_LOOP_FLAGS; cluster nodes: $CLUSTER_FLAGS)"
  echo
  echo "| setup | op | max req/s (closed loop) | errors/non-2xx | open-loop rate | p50 ms | p99 ms | p99.9 ms | max ms |"
  echo "|---|---|---|---|---|---|---|---|---|"
  printf '%s\n' "${rows[@]}"
  echo "<!-- http-suite:end -->"
)
write_section http-suite "$OUT" "$table"
