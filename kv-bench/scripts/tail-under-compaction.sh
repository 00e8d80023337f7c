#!/usr/bin/env bash
# The PUT tail while the engine compacts: a long open-loop run of PUTs of new random keys (a key space
# far larger than the run writes, so nearly every PUT inserts and the store keeps growing, flushing and
# compacting) at RATE, by default HALF of the closed-loop maximum measured first on the same nodes.
# Prints the run's p50/p99/p99.9/max, the p99 of every INTERVAL-second window and the worst of them,
# and what the engine did during the run, from each node's /metrics before and after (summed over
# the nodes): bytes flushed and compacted, compactions, writes stalled and the time they waited.
# NODES=1 is one node and plain PUTs; NODES=3 is a 3-node cluster and PUTs with ack=2&from=3.
# Stops every process it started; deletes the nodes' data unless KEEP=1.
#
#   kv-bench/scripts/tail-under-compaction.sh                    # 1 node, 300 s at half the maximum
#   NODES=3 kv-bench/scripts/tail-under-compaction.sh            # 3 nodes, ack=2&from=3
#   VALUE_SIZE=100 kv-bench/scripts/tail-under-compaction.sh     # the values of the HTTP suite
#   RATE=500 DURATION=20 INTERVAL=5 PROBE_S=5 PROBE_WARMUP=5 kv-bench/scripts/tail-under-compaction.sh  # a quick run
#
# Environment: NODES (1 or 3), RATE (default: HALF x the closed-loop maximum, measured for PROBE_S
# seconds, by default DURATION, after PROBE_WARMUP), DURATION, INTERVAL, WARMUP, VALUE_SIZE (bytes per PUT), KEY_SPACE (keys drawn from,
# uniformly), CONNECTIONS, ROUTING (the generator's --routing, default targets), NODE_FLAGS (default
# as ab-cost.sh's), NODE_JAVA_OPTS (JVM options of the nodes, e.g. -Xmx1g), LOAD_JAVA_OPTS (the
# generator's), LOAD_FLAGS, KEEP, NODE_CPUS and LOAD_CPUS (CPU lists for taskset, e.g. NODE_CPUS=0
# LOAD_CPUS=1: the nodes and the generator each on their own cores, as a client on another machine
# would be; default: both anywhere), CEILING, STORE (engine, the default: the nodes' own store as NODE_FLAGS
# choose; discard: the same nodes over a store that keeps nothing, io.kvstore.bench.load.DiscardingNode,
# whose tail is the rest of the node's on this machine; give it the engine's RATE, or its probe finds its own maximum).
set -euo pipefail

cd "$(dirname "$0")/../.."
NODES=${NODES:-1}
RATE=${RATE:-}
HALF=${HALF:-0.5}
DURATION=${DURATION:-300}
# The maximum is measured over as long as the run: a short burst outruns compaction, and half of it
# would be more than the store sustains.
PROBE_S=${PROBE_S:-$DURATION}
PROBE_WARMUP=${PROBE_WARMUP:-30}  # fresh JVMs take tens of seconds to reach their rate, three of them longer
INTERVAL=${INTERVAL:-10}
# A fresh generator takes about 10 s to reach its rate: a shorter warm-up measures its own backlog.
WARMUP=${WARMUP:-30}
VALUE_SIZE=${VALUE_SIZE:-1024}
CONNECTIONS=${CONNECTIONS:-64}
KEY_SPACE=${KEY_SPACE:-1000000000000}
NODE_JAVA_OPTS=${NODE_JAVA_OPTS:-}
LOAD_JAVA_OPTS=${LOAD_JAVA_OPTS:-}
LOAD_FLAGS=${LOAD_FLAGS:-}
KEEP=${KEEP:-0}
CEILING=${CEILING:-1}
STORE=${STORE:-engine}
# Every node holds every key here (one node, or ack=2&from=3 on three), so routing by key saves no hop,
# and the client's cluster-map read every 30 s costs the generator a recompilation of its request path
# in its first minutes, cores the nodes then wait for (docs/TUNING.md#load-generator-transport-and-timers).
ROUTING=${ROUTING:-targets}
node_cpus=() load_cpus=()
if [[ -n ${NODE_CPUS:-} ]]; then node_cpus=(taskset -c "$NODE_CPUS"); fi
if [[ -n ${LOAD_CPUS:-} ]]; then load_cpus=(taskset -c "$LOAD_CPUS"); fi
if [[ $NODES == 1 ]]; then
  NODE_FLAGS=${NODE_FLAGS:---event-loops 1}
  REPLICATION=()
  PUT_LABEL=plain
elif [[ $NODES == 3 ]]; then
  NODE_FLAGS=${NODE_FLAGS:---event-loops 1 --storage-threads 1 --transport nio --background-priority 19 --flush-threshold 8388608}  # nodes share the cores: docs/TUNING.md
  REPLICATION=(--ack 2 --from 3)
  PUT_LABEL="ack=2&from=3"
else
  echo "NODES must be 1 or 3, got $NODES" >&2
  exit 2
fi
BASE_PORT=${BASE_PORT:-18580}
SERVER_JAR=${SERVER_JAR:-kv-server/target/kv-server.jar}
BENCH_JAR=${BENCH_JAR:-kv-bench/target/benchmarks.jar}
case $STORE in
  engine) node_main=(-jar "$SERVER_JAR") ;;
  discard) node_main=(-cp "$BENCH_JAR" io.kvstore.bench.load.DiscardingNode) ;;
  *) echo "STORE must be engine or discard, got $STORE" >&2; exit 2 ;;
esac
WORK=${WORK:-$(mktemp -d -t kvstore-tail-compaction.XXXXXX)}
mkdir -p "$WORK"

source kv-bench/scripts/processes.sh  # the working directory is the repository root
source kv-bench/scripts/results.sh

urls=()
for ((i = 0; i < NODES; i++)); do urls+=("http://127.0.0.1:$((BASE_PORT + i))"); done
targets=$(IFS=,; echo "${urls[*]}")
for ((i = 0; i < NODES; i++)); do
  port=$((BASE_PORT + i))
  require_free_port "$port"
  args=(--port "$port" --data-dir "$WORK/data-$port")
  [[ $NODES != 1 ]] && args+=(--cluster "$targets" --self "${urls[$i]}")
  # shellcheck disable=SC2086 # flag lists
  "${node_cpus[@]}" java $NODE_JAVA_OPTS "${node_main[@]}" "${args[@]}" $NODE_FLAGS >"$WORK/node-$port.log" 2>&1 &
  pids+=($!)
done
for ((i = 0; i < NODES; i++)); do wait_for_port $((BASE_PORT + i)); done

load() { # load ARGS... -> the generator's report; PUTs of new keys of VALUE_SIZE bytes
  # shellcheck disable=SC2086 # LOAD_JAVA_OPTS and LOAD_FLAGS are lists
  "${load_cpus[@]}" java $LOAD_JAVA_OPTS -cp "$BENCH_JAR" io.kvstore.bench.load.LoadGenerator --targets "$targets" --routing "$ROUTING" --ops put \
    --keys "$KEY_SPACE" --value-size "$VALUE_SIZE" --connections "$CONNECTIONS" "${REPLICATION[@]}" \
    $LOAD_FLAGS "$@" 2>>"$WORK/progress.log"
}

# storage_totals -> "flushed_bytes compacted_bytes compactions stalls stall_seconds table_bytes", summed over the nodes
storage_totals() {
  local url
  for url in "${urls[@]}"; do curl -sf "$url/metrics"; done | awk '
    function add(i) { sum[i] += $NF }
    $1 ~ /^kv_storage_flushed_bytes_total($|{)/ { add(1) }
    $1 ~ /^kv_storage_compacted_bytes_total($|{)/ { add(2) }
    $1 ~ /^kv_storage_compactions_total($|{)/ { add(3) }
    $1 ~ /^kv_storage_write_stalls_total($|{)/ { add(4) }
    $1 ~ /^kv_storage_write_stall_seconds_total($|{)/ { add(5) }
    $1 ~ /^kv_storage_tables_size_bytes($|{)/ { add(6) }
    END { printf "%.0f %.0f %.0f %.0f %.3f %.0f\n", sum[1], sum[2], sum[3], sum[4], sum[5], sum[6] }'
}
storage_totals >/dev/null || { echo "the nodes serve no /metrics: start them without --metrics off" >&2; exit 1; }

if [[ -z $RATE ]]; then
  echo "finding the closed-loop maximum ($PROBE_S s)" >&2
  probe=$(load --duration "$PROBE_S" --warmup "$PROBE_WARMUP" | grep '^RESULT')
  echo "closed loop: $probe" >>"$WORK/progress.log"
  if [[ $(field errors "$probe") != 0 ]]; then  # no answer at all; a non-2xx status is an answer
    echo "the closed loop had requests without an answer, so its rate is no maximum: $probe" >&2
    exit 1
  fi
  max_rps=$(field rps "$probe")
  RATE=$(awk -v m="$max_rps" -v h="$HALF" 'BEGIN { printf "%d", m * h }')
  wait_idle "${pids[@]}"  # the probe's flushes and compactions are not the run's
fi

before=$(storage_totals)
echo "open loop at $RATE req/s for $DURATION s" >&2
result=$(load --rate "$RATE" --duration "$DURATION" --warmup "$WARMUP" --interval "$INTERVAL" \
  --interval-log "$WORK/windows.txt" --hgrm "$WORK/run.hgrm" | grep '^RESULT')
after=$(storage_totals)
echo "open loop: $result" >>"$WORK/progress.log"

delta() { # delta COLUMN [DIVISOR] -> after - before of that column of storage_totals, divided
  awk -v a="$(cut -d' ' -f"$1" <<<"$after")" -v b="$(cut -d' ' -f"$1" <<<"$before")" -v d="${2:-1}" \
    'BEGIN { v = (a - b) / d; printf (v == int(v) ? "%d" : "%.1f"), v }'
}
mib=$((1024 * 1024))
window_p99s() { awk '!/^#/ { printf "%s%s", sep, $4; sep = " " }' "$1"; }  # window_p99s FILE
worst_window() { awk '!/^#/ && $4 + 0 >= w + 0 { w = $4; at = $1 } END { printf "%s ms (window ending at %s s)", w, at }' "$1"; }
windows=$(window_p99s "$WORK/windows.txt")
worst=$(worst_window "$WORK/windows.txt")

if [[ $CEILING == 1 ]]; then
  stop_all
  "${node_cpus[@]}" java -cp "$BENCH_JAR" io.kvstore.bench.load.CeilingServer --port "$BASE_PORT" --event-loops 1 \
    >"$WORK/ceiling.log" 2>&1 &
  pids+=($!)
  wait_for_port "$BASE_PORT"
  echo "the same open loop against the bare Vert.x server" >&2
  targets="http://127.0.0.1:$BASE_PORT" REPLICATION=()
  ROUTING=targets
  ceiling=$(load --rate "$RATE" --duration "$DURATION" --warmup "$WARMUP" --interval "$INTERVAL" \
    --interval-log "$WORK/ceiling-windows.txt" | grep '^RESULT')
  echo "ceiling: $ceiling" >>"$WORK/progress.log"
fi

echo "Run $(date -u '+%Y-%m-%d %H:%M') UTC, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the end;" \
  "NODES=$NODES STORE=$STORE DURATION=$DURATION INTERVAL=$INTERVAL VALUE_SIZE=$VALUE_SIZE CONNECTIONS=$CONNECTIONS;" \
  "nodes: $NODE_FLAGS${NODE_JAVA_OPTS:+ $NODE_JAVA_OPTS}${NODE_CPUS:+ on CPUs $NODE_CPUS}${LOAD_CPUS:+, generator on CPUs $LOAD_CPUS}${max_rps:+; closed-loop maximum $max_rps req/s}"
echo
echo "| nodes | PUT | req/s | p50 ms | p99 ms | p99.9 ms | max ms | worst ${INTERVAL} s p99 | flushed MiB | compacted MiB | compactions | stalled writes | stalled s | tables MiB at end | errors/non-2xx |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
if [[ $STORE == discard ]]; then  # no engine, no engine counters
  engine_columns="- | - | - | - | - | - |"
else
  engine_columns="$(delta 1 $mib) | $(delta 2 $mib) | $(delta 3) | $(delta 4) | $(delta 5) |"
  engine_columns+=" $(awk -v t="$(cut -d' ' -f6 <<<"$after")" -v m=$mib 'BEGIN { printf "%.0f", t / m }') |"
fi
echo "| $NODES | $PUT_LABEL at $RATE/s | $(field rps "$result") | $(field p50 "$result") | $(field p99 "$result") |" \
  "$(field p999 "$result") | $(field max "$result") | $worst | $engine_columns" \
  "$(field errors "$result")/$(field non2xx "$result") |"
echo
echo "p99 ms of each ${INTERVAL} s window: $windows"
if [[ $CEILING == 1 ]]; then
  echo
  echo "| server | PUT | req/s | p50 ms | p99 ms | p99.9 ms | max ms | worst ${INTERVAL} s p99 |"
  echo "|---|---|---|---|---|---|---|---|"
  echo "| bare Vert.x, 1 event loop | at $RATE/s | $(field rps "$ceiling") | $(field p50 "$ceiling") | $(field p99 "$ceiling") |" \
    "$(field p999 "$ceiling") | $(field max "$ceiling") | $(worst_window "$WORK/ceiling-windows.txt") |"
  echo
  echo "p99 ms of each ${INTERVAL} s window, bare Vert.x: $(window_p99s "$WORK/ceiling-windows.txt")"
fi
if [[ $KEEP == 1 ]]; then echo "windows, histogram and logs: $WORK"; fi
