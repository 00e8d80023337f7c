#!/usr/bin/env bash
# YCSB, embedded: our LSM against RocksDB (or any engines of BenchEngine) through KvStoreYcsbDb, a fresh
# store per engine and round: the load of RECORDS records, then each workload of WORKLOADS over
# OPERATIONS operations, each phase its own JVM (so each reopens the store the last one closed, with the
# compaction debt it left). Engines alternate their order from round to round. Prints ops/s per round,
# the medians and the ratio of the first engine to the second, and the writers' stalls each phase
# reported at close.
#
#   kv-bench/scripts/ycsb-engines.sh                                        # 10M records: about 12 GB a store
#   RECORDS=1000000 OPERATIONS=1000000 ROUNDS=3 kv-bench/scripts/ycsb-engines.sh
#
# Environment: RECORDS (default 10000000), OPERATIONS (1000000), ROUNDS (3), THREADS (2), WORKLOADS
# ("a c", files of kv-bench/ycsb), ENGINES ("lsm rocksdb"), JAVA_OPTS, WORK (where the stores are made;
# default a new temporary directory, deleted at the end), BENCH_JAR.
set -euo pipefail

cd "$(dirname "$0")/../.."
RECORDS=${RECORDS:-10000000}
OPERATIONS=${OPERATIONS:-1000000}
ROUNDS=${ROUNDS:-3}
THREADS=${THREADS:-2}
WORKLOADS=${WORKLOADS:-a c}
read -r -a engines <<< "${ENGINES:-lsm rocksdb}"
JAVA_OPTS=${JAVA_OPTS:-}
BENCH_JAR=${BENCH_JAR:-kv-bench/target/benchmarks.jar}
WORK=${WORK:-$(mktemp -d -t kvstore-ycsb.XXXXXX)}
mkdir -p "$WORK"
trap 'rm -rf "$WORK"/store-*' EXIT

phase() { # phase ENGINE DIR -load|-t WORKLOAD LOG -> ops/s
  local engine=$1 dir=$2 mode=$3 workload=$4 log=$5
  # shellcheck disable=SC2086 # JAVA_OPTS is a list of options
  java $JAVA_OPTS -cp "$BENCH_JAR" site.ycsb.Client "$mode" -db io.kvstore.bench.ycsb.KvStoreYcsbDb \
    -P "kv-bench/ycsb/workload$workload" -p kvstore.engine="$engine" -p kvstore.dir="$dir" \
    -p recordcount="$RECORDS" -p operationcount="$OPERATIONS" -threads "$THREADS" >"$log" 2>&1
  awk -F', ' '/\[OVERALL\], Throughput/ { printf "%.0f", $3 }' "$log"
}

stalled() { # stalled LOG -> seconds writers waited, from the properties printed at close
  grep -o 'writeStallNanos=[0-9-]*' "$1" | tail -1 | awk -F= '{ printf "%.1f", ($2 < 0 ? 0 : $2 / 1e9) }'
}

declare -A results
for ((round = 1; round <= ROUNDS; round++)); do
  order=("${engines[@]}")
  if ((round % 2 == 0)); then order=("${engines[1]}" "${engines[0]}"); fi
  for engine in "${order[@]}"; do
    dir="$WORK/store-$engine-$round"
    log="$WORK/$engine-$round-load.log"
    ops=$(phase "$engine" "$dir" -load a "$log")
    results[$engine,load]+="$ops "
    echo "round $round $engine load: $ops ops/s, writers stalled $(stalled "$log") s" >&2
    for w in $WORKLOADS; do
      log="$WORK/$engine-$round-$w.log"
      ops=$(phase "$engine" "$dir" -t "$w" "$log")
      results[$engine,$w]+="$ops "
      echo "round $round $engine $w: $ops ops/s, writers stalled $(stalled "$log") s" >&2
    done
    rm -rf "$dir"
  done
done

median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo "| phase | ${engines[0]} ops/s (rounds) | ${engines[1]} ops/s (rounds) | ${engines[0]} / ${engines[1]} |"
echo "|---|---|---|---|"
for p in load $WORKLOADS; do
  a=$(median <<< "${results[${engines[0]},$p]}")
  b=$(median <<< "${results[${engines[1]},$p]}")
  echo "| $p | $a (${results[${engines[0]},$p]% }) | $b (${results[${engines[1]},$p]% }) | $(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2fx", a / b }') |"
done
echo "logs in $WORK" >&2
