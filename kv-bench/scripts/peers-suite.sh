#!/usr/bin/env bash
# kvstore beside Apache Cassandra 5.0 under YCSB, both replicated stores on this machine, one after the other:
# for each node count of NODES, our nodes (started as processes.sh's start_kv_node does, driven by HttpYcsbDb
# from kv-bench's class path) then Cassandra's (kv-bench/scripts/cassandra.sh, driven by CassandraYcsbDb from
# kv-bench-cassandra's), each fresh: the load of RECORDS records of 10 fields x 100 bytes (1 KB), then each
# workload of WORKLOADS (files of kv-bench/ycsb) over OPERATIONS operations, closed loop at THREADS threads,
# each phase a YCSB JVM of its own. Prints a Markdown table of ops/s and the ratio ours / Cassandra's. Then,
# with OPEN_LOOP=1 (the default), each workload again in open loop (YCSB's -target) for OPEN_DURATION seconds
# after OPEN_WARMUP seconds unmeasured, at half the lower of the two sides' maxima, latencies from each
# operation's intended start (YCSB's measurement.interval=intended, so a stalled store is not hidden by the
# requests it held back): a second table of p50/p99/p99.9. Our nodes are restarted on their data for it,
# Cassandra's run it after their closed loops.
#
#   kv-bench/scripts/peers-suite.sh                                   # 1M records, 1 node and 3
#   RECORDS=100000 NODES=1 kv-bench/scripts/peers-suite.sh            # a quick run
#
# Consistency: one node: ours alone, Cassandra replication factor 1 at ONE. Three nodes, replication factor 3
# on both sides, each level of LEVELS: "one" is our ack=1&from=3 against Cassandra's ONE, "quorum" our
# ack=2&from=3 against QUORUM (the load runs at the first level, reads and writes at the row's). Both clients
# send each request to a replica of its key (HttpYcsbDb's replica routing, the driver's token-aware policy).
# Durability (SYNC): none (default) or group is our --sync against Cassandra's periodic commit log (forced
# every 10 s); every is ours against Cassandra's batch commit log (forced before a write is acknowledged).
# An update is ours a read of the record and a write of it whole (a value is the record), Cassandra's a write
# of the updated field's column alone.
# With MOVES=1 (the default) and three nodes, each side's cluster at rest then has a replica wiped and
# rebuilt by a repair, and a fourth node joins (see rebuild_and_join): a third table of times.
# Environment: RECORDS (1000000), OPERATIONS (RECORDS), THREADS (64), NODES ("1 3"), LEVELS ("one quorum"),
# WORKLOADS ("a b c f"), OPEN_LOOP (1), MOVES (1), OPEN_DURATION (60), OPEN_WARMUP (20), SYNC (none), NODE_JAVA_OPTS (our
# nodes' JVM options, default "-Xms1g -Xmx1g", as Cassandra's CASSANDRA_HEAP), CLUSTER_FLAGS (our three nodes'
# options; default http-suite.sh's for three nodes sharing the cores), YCSB_JAVA_OPTS, BASE_PORT (18180), WORK
# (default a new temporary directory, deleted at the end unless KEEP=1 or a failure), SERVER_JAR, BENCH_JAR.
set -euo pipefail

cd "$(dirname "$0")/../.."
RECORDS=${RECORDS:-1000000}
OPERATIONS=${OPERATIONS:-$RECORDS}
THREADS=${THREADS:-64}
read -r -a node_counts <<<"${NODES:-1 3}"
read -r -a levels <<<"${LEVELS:-one quorum}"
WORKLOADS=${WORKLOADS:-a b c f}
OPEN_LOOP=${OPEN_LOOP:-1}
OPEN_DURATION=${OPEN_DURATION:-60}
OPEN_WARMUP=${OPEN_WARMUP:-20}
MOVES=${MOVES:-1}
SYNC=${SYNC:-none}
case $SYNC in
  none | group) COMMITLOG=periodic ;;
  every) COMMITLOG=batch ;;
  *) echo "SYNC must be none, group or every, got '$SYNC'" >&2; exit 2 ;;
esac
NODE_JAVA_OPTS=${NODE_JAVA_OPTS:--Xms1g -Xmx1g}
# One storage thread per node only where writes do not wait on the disk (OPERATIONS.md: with group and
# every, many writers share each fsync).
CLUSTER_FLAGS=${CLUSTER_FLAGS:---event-loops 1 --transport nio --background-priority 19$([[ $SYNC == none ]] && echo " --storage-threads 1")}
YCSB_JAVA_OPTS=${YCSB_JAVA_OPTS:-}
BASE_PORT=${BASE_PORT:-18180}
SERVER_JAR=${SERVER_JAR:-kv-server/target/kv-server.jar}
BENCH_JAR=${BENCH_JAR:-kv-bench/target/benchmarks.jar}
WORK=${WORK:-$(mktemp -d -t kvstore-peers.XXXXXX)}
mkdir -p "$WORK"
export COMMITLOG

if [[ ! -f $SERVER_JAR || ! -f $BENCH_JAR ]]; then
  ./mvnw -B -ntp -q -pl kv-server,kv-bench -am -DskipTests package
fi
source kv-bench/scripts/processes.sh  # the working directory is the repository root
source kv-bench/scripts/cassandra.sh
cassandra_classpaths

ycsb() { # ycsb SIDE MODE WORKLOAD LOG ARGS... -> "ops/s errors"
  local side=$1 mode=$2 workload=$3 log=$4 cp db
  if [[ $side == kv ]]; then cp=$BENCH_JAR db=io.kvstore.bench.ycsb.HttpYcsbDb
  else cp=$BINDING_CP db=io.kvstore.bench.cassandra.CassandraYcsbDb; fi
  # shellcheck disable=SC2086 # YCSB_JAVA_OPTS is a list of options
  # YCSB ends a loading thread at its first failed insert: retried instead (both sides alike), so that a
  # refusal under load (our 503 with Retry-After, a driver's timeout) does not leave the load short.
  java $YCSB_JAVA_OPTS -cp "$cp" site.ycsb.Client "$mode" -db "$db" -P "kv-bench/ycsb/workload$workload" \
    -p recordcount="$RECORDS" -p operationcount="$OPERATIONS" -threads "$THREADS" \
    -p core_workload_insertion_retry_limit=10 -p core_workload_insertion_retry_interval=1 "${@:5}" >"$log" 2>&1
  grep -q '\[OVERALL\], Throughput' "$log" || echo "no throughput from YCSB; see $log" >&2
  # Errors and reads that found no record (every record read was loaded).
  awk -F', ' '/\[OVERALL\], Throughput/ { ops = $3 } /Return=(ERROR|NOT_FOUND)/ { errors += $3 }
    END { printf "%.0f %d\n", ops, errors }' "$log"
}

latencies() { # latencies LOG -> "OP p50 p99 p99.9" a line per operation, in ms
  awk -F', ' '/^\[[A-Z-]+\], (50th|99th|99\.9)PercentileLatency/ && !/CLEANUP/ {
      op = substr($1, 2, length($1) - 2); p[op, $2] = $3; ops[op] = 1 }
    END { for (op in ops) printf "%s %.1f %.1f %.1f\n", op, p[op, "50thPercentileLatency(us)"] / 1000,
      p[op, "99thPercentileLatency(us)"] / 1000, p[op, "99.9PercentileLatency(us)"] / 1000 }' "$1" | sort
}

client_args() { # client_args SIDE NODES LEVEL -> YCSB -p options of the side's binding
  local side=$1 n=$2 level=$3 ack
  if [[ $side == kv ]]; then
    local urls="" i
    for ((i = 1; i <= n; i++)); do urls+="${urls:+,}http://127.0.0.1:$((BASE_PORT + i))"; done
    echo "-p kvstore.urls=$urls"
    if ((n > 1)); then
      ack=$([[ $level == quorum ]] && echo 2 || echo 1)
      echo "-p kvstore.ack=$ack -p kvstore.from=$n"
    fi
  else
    echo "-p cassandra.hosts=$cassandra_hosts -p cassandra.readconsistency=${level^^} -p cassandra.writeconsistency=${level^^}"
  fi
}

start_side() { # start_side SIDE NODES
  local side=$1 n=$2 i cluster=""
  if [[ $side == cassandra ]]; then
    start_cassandra "$n"
    return
  fi
  for ((i = 1; i <= n; i++)); do cluster+="${cluster:+,}http://127.0.0.1:$((BASE_PORT + i))"; done
  for ((i = 1; i <= n; i++)); do
    if ((n == 1)); then
      start_kv_node $((BASE_PORT + i)) --data-dir "$WORK/kv-$i" --sync "$SYNC"
    else
      # shellcheck disable=SC2086 # CLUSTER_FLAGS is a list of flags
      start_kv_node $((BASE_PORT + i)) --data-dir "$WORK/kv-$i" --sync "$SYNC" --cluster "$cluster" \
        --self "http://127.0.0.1:$((BASE_PORT + i))" $CLUSTER_FLAGS
    fi
  done
  for ((i = 1; i <= n; i++)); do wait_for_port $((BASE_PORT + i)); done
}

declare -A ops errs open
closed_loops() { # closed_loops SIDE NODES: the load, then each level's workloads
  local side=$1 n=$2 level w o e started
  echo "$n node(s): $side, loading $RECORDS records" >&2
  start_side "$side" "$n"
  started=("${pids[@]}")
  # shellcheck disable=SC2046 # client_args prints options
  read -r o e < <(ycsb "$side" -load a "$WORK/$side-$n-load.log" $(client_args "$side" "$n" "${row_levels[0]}"))
  ops[$n,${row_levels[0]},load,$side]=$o errs[$n,${row_levels[0]},load,$side]=$e
  echo "  load: $o ops/s, $e errors" >&2
  wait_idle "${started[@]}"
  for level in "${row_levels[@]}"; do
    for w in $WORKLOADS; do
      # shellcheck disable=SC2046
      read -r o e < <(ycsb "$side" -t "$w" "$WORK/$side-$n-$level-$w.log" $(client_args "$side" "$n" "$level"))
      ops[$n,$level,$w,$side]=$o errs[$n,$level,$w,$side]=$e
      echo "  $level $w: $o ops/s, $e errors" >&2
    done
  done
}

open_loops() { # open_loops SIDE NODES: each level's workloads at half the lower maximum
  local side=$1 n=$2 level w o e rate log
  for level in "${row_levels[@]}"; do
    for w in $WORKLOADS; do
      rate=$(awk -v a="${ops[$n,$level,$w,kv]}" -v b="${ops[$n,$level,$w,cassandra]}" \
        'BEGIN { printf "%d", (a < b ? a : b) / 2 }')
      ((rate > 0)) || continue
      log="$WORK/$side-$n-$level-$w-open.log"
      # Unmeasured first: the same load for OPEN_WARMUP seconds, so that neither store is measured cold
      # (ours is restarted for these rows); a stall at the start would hold every later request back.
      # shellcheck disable=SC2046
      ycsb "$side" -t "$w" "$log.warmup" $(client_args "$side" "$n" "$level") -target "$rate" \
        -p operationcount=$((rate * OPEN_WARMUP)) >/dev/null
      # shellcheck disable=SC2046
      read -r o e < <(ycsb "$side" -t "$w" "$log" $(client_args "$side" "$n" "$level") -target "$rate" \
        -p operationcount=$((rate * OPEN_DURATION)) -p measurementtype=hdrhistogram \
        -p hdrhistogram.percentiles=50,99,99.9 -p measurement.interval=intended)
      open[$n,$level,$w,rate]=$rate open[$n,$level,$w,$side]=$(latencies "$log")
      errs[$n,$level,$w,$side,open]=$e
      echo "  $level $w at $rate ops/s: $o ops/s, $e errors" >&2
    done
  done
}

nodetool() { # nodetool NODE ARGS...: Cassandra's nodetool against node NODE's JMX port
  local -a options
  read -r -a options <<<"$(grep -v '^\s*#' "$CASSANDRA_OPTIONS_FILE" | grep -v '^-XX' | tr '\n' ' ')"
  java "${options[@]}" -cp "$CASSANDRA_CP" org.apache.cassandra.tools.NodeTool -h 127.0.0.1 -p $((7190 + $1)) "${@:2}"
}

seconds_since() { awk -v t0="$1" -v t1="$(date +%s.%N)" 'BEGIN { printf "%.1f", t1 - t0 }'; }

# data_mb NODE: MB of the data node NODE holds (ours: its tables and memtables from /v0/status, logs left out;
# Cassandra's: its keyspace's directory)
data_mb() {
  if [[ $side == kv ]]; then
    curl -s "http://127.0.0.1:$((BASE_PORT + $1))/v0/status" | python3 -c '
import json, sys
s = json.load(sys.stdin)["storage"]
print(round((s["tableBytes"] + s["memtableBytes"]) / 2**20))'
  else
    du -sm "$WORK/cassandra-$1/data/$KEYSPACE" | cut -f1
  fi
}

declare -A moves
# The third node of the side's three (pid index 2) stopped, its data deleted, started again empty and rebuilt
# by a repair run on it (ours: POST /v0/admin/repair; Cassandra's: nodetool repair -full of the keyspace);
# then a fourth node joins, holding what it gains once it serves (ours: `normal` in /v0/cluster; Cassandra's:
# CQL open, which a bootstrapping node opens after its streams). Times from the repair's start to its answer
# and from the fourth node's start; the rebuilt and the new node's data against the first node's.
rebuild_and_join() { # rebuild_and_join SIDE
  local side=$1 t0 url3="http://127.0.0.1:$((BASE_PORT + 3))" url4="http://127.0.0.1:$((BASE_PORT + 4))" cluster i
  kill "${pids[2]}"
  wait "${pids[2]}" 2>/dev/null || true
  if [[ $side == kv ]]; then
    rm -rf "$WORK/kv-3"
    cluster=$(for ((i = 1; i <= 3; i++)); do printf '%shttp://127.0.0.1:%d' "$([[ $i -gt 1 ]] && echo ,)" $((BASE_PORT + i)); done)
    # shellcheck disable=SC2086 # CLUSTER_FLAGS is a list of flags
    start_kv_node $((BASE_PORT + 3)) --data-dir "$WORK/kv-3" --sync "$SYNC" --cluster "$cluster" --self "$url3" $CLUSTER_FLAGS
    wait_for_port $((BASE_PORT + 3))
    t0=$(date +%s.%N)
    curl -sf -X POST "$url3/v0/admin/repair" >"$WORK/kv-repair.json" || { echo "our repair failed; see $WORK/kv-repair.json" >&2; return 1; }
    moves[kv,rebuild]=$(seconds_since "$t0")
    moves[kv,rebuilt_mb]="$(data_mb 3) of $(data_mb 1)"
    t0=$(date +%s.%N)
    # shellcheck disable=SC2086
    start_kv_node $((BASE_PORT + 4)) --data-dir "$WORK/kv-4" --sync "$SYNC" --self "$url4" --join "http://127.0.0.1:$((BASE_PORT + 1))" $CLUSTER_FLAGS
    for _ in $(seq 1 3000); do
      [[ $(curl -s "http://127.0.0.1:$((BASE_PORT + 1))/v0/cluster" | python3 -c '
import json, sys
print(next((n["state"] for n in json.load(sys.stdin)["nodes"] if n["url"] == sys.argv[1]), "absent"))' "$url4") == normal ]] && break
      sleep 0.2
    done
    moves[kv,join]=$(seconds_since "$t0")
    moves[kv,joined_mb]="$(data_mb 4) of $(data_mb 1)"
  else
    rm -rf "$WORK/cassandra-3/data/$KEYSPACE"-* "$WORK/cassandra-3/data/$KEYSPACE" "$WORK/cassandra-3/commitlog" "$WORK/cassandra-3/hints"
    start_cassandra_node 3
    for _ in $(seq 1 240); do cql_open 127.0.0.3 && break; sleep 0.5; done
    t0=$(date +%s.%N)
    nodetool 3 repair -full "$KEYSPACE" >"$WORK/cassandra-repair.log" 2>&1 || { echo "Cassandra's repair failed; see $WORK/cassandra-repair.log" >&2; return 1; }
    moves[cassandra,rebuild]=$(seconds_since "$t0")
    moves[cassandra,rebuilt_mb]="$(data_mb 3) of $(data_mb 1)"
    t0=$(date +%s.%N)
    start_cassandra_node 4
    for _ in $(seq 1 3000); do cql_open 127.0.0.4 && break; sleep 0.2; done
    moves[cassandra,join]=$(seconds_since "$t0")
    moves[cassandra,joined_mb]="$(data_mb 4) of $(data_mb 1)"
  fi
  echo "  $side: wiped replica rebuilt in ${moves[$side,rebuild]} s (${moves[$side,rebuilt_mb]} MB), fourth node joined in ${moves[$side,join]} s (${moves[$side,joined_mb]} MB)" >&2
}

for n in "${node_counts[@]}"; do
  row_levels=("${levels[@]}")
  ((n == 1)) && row_levels=(one)
  moving=$([[ $MOVES == 1 && $n == 3 ]] && echo 1 || echo 0)
  closed_loops kv "$n"
  [[ $moving == 1 && $OPEN_LOOP != 1 ]] && rebuild_and_join kv
  stop_all
  closed_loops cassandra "$n"
  if [[ $OPEN_LOOP == 1 ]]; then
    echo "$n node(s): cassandra, open loops" >&2
    wait_idle "${pids[@]}"
    open_loops cassandra "$n"
  fi
  [[ $moving == 1 ]] && rebuild_and_join cassandra
  stop_all
  rm -rf "$WORK"/cassandra-[0-9]
  if [[ $OPEN_LOOP == 1 ]]; then
    echo "$n node(s): kv, restarted on its data, open loops" >&2
    start_side kv "$n"
    wait_idle "${pids[@]}"
    open_loops kv "$n"
    [[ $moving == 1 ]] && rebuild_and_join kv
    stop_all
  fi
  rm -rf "$WORK"/kv-[0-9]
done

level_label() { # level_label NODES LEVEL
  if (($1 == 1)); then echo "1 replica"
  elif [[ $2 == quorum ]]; then echo "ack=2&from=$1 / QUORUM"
  else echo "ack=1&from=$1 / ONE"; fi
}
echo
echo "Run $(date -u +%Y-%m-%d), $(nproc) cores, $(java -version 2>&1 | head -1); $RECORDS records of 10 x 100 B, $OPERATIONS operations a workload, $THREADS threads, closed loop. Durability: kvstore --sync $SYNC, Cassandra commitlog_sync $COMMITLOG$([[ $COMMITLOG == periodic ]] && echo " (10 s)")."
echo "Command: \`RECORDS=$RECORDS OPERATIONS=$OPERATIONS THREADS=$THREADS NODES=\"${node_counts[*]}\" LEVELS=\"${levels[*]}\" SYNC=$SYNC kv-bench/scripts/peers-suite.sh\`"
echo
echo "| nodes | consistency (kvstore / Cassandra) | phase | kvstore ops/s | Cassandra ops/s | kvstore / Cassandra | errors + not found (kvstore/Cassandra) |"
echo "|---|---|---|---|---|---|---|"
for n in "${node_counts[@]}"; do
  row_levels=("${levels[@]}")
  ((n == 1)) && row_levels=(one)
  for level in "${row_levels[@]}"; do
    for p in load $WORKLOADS; do
      [[ -n ${ops[$n,$level,$p,kv]:-} ]] || continue
      a=${ops[$n,$level,$p,kv]} b=${ops[$n,$level,$p,cassandra]}
      echo "| $n | $(level_label "$n" "$level") | ${p^^} | $a | $b | $(awk -v a="$a" -v b="$b" 'BEGIN { printf (b > 0 ? "%.2fx" : "-"), a / (b > 0 ? b : 1) }') | ${errs[$n,$level,$p,kv]}/${errs[$n,$level,$p,cassandra]} |"
    done
  done
done

if [[ -n ${moves[kv,join]:-} && -n ${moves[cassandra,join]:-} ]]; then
  echo
  echo "Three nodes holding the load's records (RF 3), at rest: a replica's data deleted and rebuilt by a repair run on it (ours: POST /v0/admin/repair; Cassandra: nodetool repair -full), then a fourth node joined, from its start until it serves (ours: normal; Cassandra: CQL open after its bootstrap). Data: MB on the node against the first node's."
  echo
  echo "| step | kvstore s | Cassandra s | kvstore / Cassandra (time) | data, kvstore MB | data, Cassandra MB |"
  echo "|---|---|---|---|---|---|"
  echo "| rebuild a wiped replica | ${moves[kv,rebuild]} | ${moves[cassandra,rebuild]} | $(awk -v a="${moves[kv,rebuild]}" -v b="${moves[cassandra,rebuild]}" 'BEGIN { printf "%.2fx", a / b }') | ${moves[kv,rebuilt_mb]} | ${moves[cassandra,rebuilt_mb]} |"
  echo "| join a fourth node | ${moves[kv,join]} | ${moves[cassandra,join]} | $(awk -v a="${moves[kv,join]}" -v b="${moves[cassandra,join]}" 'BEGIN { printf "%.2fx", a / b }') | ${moves[kv,joined_mb]} | ${moves[cassandra,joined_mb]} |"
fi

if [[ $OPEN_LOOP == 1 ]]; then
  echo
  echo "Open loop: each workload for ${OPEN_DURATION} s, after ${OPEN_WARMUP} s unmeasured, at half the lower of the two closed-loop maxima (YCSB -target, $THREADS threads), latency from each operation's intended start, in ms."
  echo
  echo "| nodes | consistency (kvstore / Cassandra) | workload | ops/s | operation | kvstore p50 / p99 / p99.9 | Cassandra p50 / p99 / p99.9 | errors + not found (kvstore/Cassandra) |"
  echo "|---|---|---|---|---|---|---|---|"
  for n in "${node_counts[@]}"; do
    row_levels=("${levels[@]}")
    ((n == 1)) && row_levels=(one)
    for level in "${row_levels[@]}"; do
      for w in $WORKLOADS; do
        [[ -n ${open[$n,$level,$w,rate]:-} ]] || continue
        while read -r op a50 a99 a999; do
          read -r _ b50 b99 b999 < <(grep "^$op " <<<"${open[$n,$level,$w,cassandra]:-}" || echo "$op - - -")
          echo "| $n | $(level_label "$n" "$level") | ${w^^} | ${open[$n,$level,$w,rate]} | $op | $a50 / $a99 / $a999 | $b50 / $b99 / $b999 | ${errs[$n,$level,$w,kv,open]:-}/${errs[$n,$level,$w,cassandra,open]:-} |"
        done <<<"${open[$n,$level,$w,kv]:-}"
      done
    done
  done
fi
