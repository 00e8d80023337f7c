#!/usr/bin/env bash
# Our LSM engine against RocksDB twice: through its Java binding (DaoBenchmark runs both engines
# behind the Dao interface, RocksDB as kv-core's RocksDbDao drives it) and natively (RocksDB's own
# C++ db_bench, from Debian's rocksdb-tools, installed with apt-get when missing). Three operations,
# each with every thread count of THREADS:
#   fill     KEYS writes of new random keys into an empty store, split among the threads
#            (DaoBenchmark.fill; db_bench fillrandom);
#   get      point reads of random present keys (DaoBenchmark.getPresent; db_bench readrandom);
#   scan-100 a seek to a random present key and the 100 entries from it on (DaoBenchmark.scan100;
#            db_bench seekrandom --seek_nexts=99, which reads the entry it seeks to and 99 more).
# Prints one table, ops/s of each engine and the ratios LSM / native and LSM / JNI, and writes it
# between the engine-suite markers of docs/BENCHMARKS.md (OUT; OUT=/dev/null to only print).
#
#   nice -n 19 kv-bench/scripts/engine-suite.sh                  # 5M keys, 5 iterations of 5 s
#   KEYS=1000000 ITERATIONS=3 SECONDS_PER_ITERATION=3 nice -n 19 kv-bench/scripts/engine-suite.sh
#
# What is the same on all three sides:
# - 16-byte keys and 100-byte values; read stores of KEYS keys, every read finding its key, flushed
#   and compacted into one sorted run before the reads; each fill starts from an empty store.
# - Write-ahead log on, no fsync per write (our SyncPolicy.NONE; db_bench --sync=false, WAL on).
# - No compression: DaoBenchmark stores blocks uncompressed in both engines, and db_bench (Snappy
#   by default) gets --compression_type=none.
# - 10 Bloom bits per key, whole-key filters; RocksDB also gets the memtable Bloom filter RocksDbDao
#   configures. 4 KiB blocks; 32 MiB memtables, at most 3; level-0 compaction at 4 tables;
#   2 background jobs.
# - A 128 MiB LRU block cache for RocksDB on both sides (RocksDbDao's); our engine caches only blocks it
#   decompressed (these are stored uncompressed) and reads its mapped tables through the page cache.
#   KEYS=5000000 (580 MB of entries) does not fit that block cache; KEYS=1000000 (116 MB) about does.
# - Warm-up, then equal measured time: JMH runs WARMUPS iterations and then ITERATIONS iterations of
#   SECONDS_PER_ITERATION for each read; db_bench reads for ITERATIONS x SECONDS_PER_ITERATION after
#   a warm-up run as long. Fills: one warm-up fill, then ITERATIONS fills averaged, on every side
#   (JMH times each thread's share of a fill and averages the threads; db_bench times them together).
# - Where db_bench's defaults differ from RocksDB's own for these options, the flags set RocksDB's:
#   --enable_pipelined_write=false and --level_compaction_dynamic_level_bytes=true (RocksDB 10).
# What is not the same:
# - The RocksDB versions: rocksdbjni as pinned in the parent pom, db_bench as Debian packages it
#   (7.8.3 on bookworm); the table says which ran.
# - Keys: ours are random-looking bytes (BenchKeys, and fresh random bytes in fill); db_bench's are an
#   8-byte big-endian integer padded with '0' bytes, whose shared prefixes RocksDB's blocks store
#   once. db_bench's fill draws its integers from a range 1000 times KEYS, so about 0.05% repeat.
# - RocksDbDao reads a key's stored version before each write (the highest timestamp wins) and stores
#   a 9-byte header with each value; the JNI rows pay this, the native rows do not.
# - The JVM: JMH's harness and the Java side of each call are in the LSM and JNI rows.
# Run it on an otherwise idle machine for figures worth publishing; the table records the load average
# before and after.
set -euo pipefail

cd "$(dirname "$0")/../.."
KEYS=${KEYS:-5000000}
THREADS=${THREADS:-1 2}
WARMUPS=${WARMUPS:-3}
ITERATIONS=${ITERATIONS:-5}
SECONDS_PER_ITERATION=${SECONDS_PER_ITERATION:-5}
BENCH_JAR=${BENCH_JAR:-kv-bench/target/benchmarks.jar}
DB_BENCH=${DB_BENCH:-db_bench}
OUT=${OUT:-docs/BENCHMARKS.md}
WORK=${WORK:-$(mktemp -d -t kvstore-engine-suite.XXXXXX)}
mkdir -p "$WORK"

for tool in java jq python3; do
  command -v "$tool" >/dev/null || { echo "engine-suite.sh needs $tool on the PATH" >&2; exit 2; }
done
for t in $THREADS; do
  if (( KEYS % t != 0 )); then
    echo "KEYS ($KEYS) must be a multiple of every thread count in THREADS ($THREADS)" >&2
    exit 2
  fi
done

if ! command -v "$DB_BENCH" >/dev/null; then
  echo "$DB_BENCH not found: installing Debian's rocksdb-tools"
  sudo=$([[ $EUID == 0 ]] || echo sudo)
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends rocksdb-tools
fi
if [[ ! -f $BENCH_JAR ]]; then
  ./mvnw -B -ntp -q -DskipTests package -pl kv-bench -am
fi

source kv-bench/scripts/processes.sh  # the working directory is the repository root
source kv-bench/scripts/results.sh

load_before=$(cut -d' ' -f1 /proc/loadavg)
results="$WORK/results.tsv"  # operation, threads, engine, ops/s
: >"$results"

# JMH: a fork per run; the read stores are built once (PreloadedStore) and reused by later runs.
jmh() { # jmh NAME ARGS...
  local json="$WORK/$1.json"
  java -jar "$BENCH_JAR" "${@:2}" -f 1 -p keys="$KEYS" -rf json -rff "$json" \
    -jvmArgsAppend "-Xms2g -Xmx2g -Dkv.bench.dir=$WORK/stores" >>"$WORK/jmh.log" 2>&1 \
    || { echo "JMH failed; see $WORK/jmh.log" >&2; return 1; }
  # fill's score is the milliseconds of one fill of KEYS keys; the reads' are ops/s already.
  jq -r --argjson keys "$KEYS" '.[] | [
      ((.benchmark | sub(".*\\."; "")) as $method | {fill: "fill", getPresent: "get", scan100: "scan-100"}[$method]),
      .threads,
      (if .params.engine == "lsm" then "lsm" else "jni" end),
      (if .mode == "ss" then $keys / (.primaryMetric.score / 1000) else .primaryMetric.score end)
    ] | @tsv' "$json" >>"$results"
}

for t in $THREADS; do
  echo "JMH, $t thread(s): fill"
  jmh "fill-$t" 'DaoBenchmark\.fill$' -t "$t" -wi 1 -i "$ITERATIONS"
  echo "JMH, $t thread(s): get, scan-100"
  jmh "read-$t" 'DaoBenchmark\.(getPresent|scan100)$' -t "$t" \
    -wi "$WARMUPS" -w "${SECONDS_PER_ITERATION}s" -i "$ITERATIONS" -r "${SECONDS_PER_ITERATION}s"
done

# db_bench with RocksDbDao's options (RocksResources) and the sides' common settings.
native_flags=(--key_size=16 --value_size=100 --compression_type=none --bloom_bits=10
  --memtable_whole_key_filtering=true --memtable_bloom_size_ratio=0.1 --block_size=4096
  --cache_size=$((128 << 20)) --write_buffer_size=$((32 << 20)) --max_write_buffer_number=3
  --level0_file_num_compaction_trigger=4 --max_background_jobs=2 --sync=false --disable_wal=false
  --enable_pipelined_write=false --level_compaction_dynamic_level_bytes=true
  --progress_reports=false --seed=1)

# Prints "operation ops/s found/operations" for each result line of NAME in db_bench's output.
native_rates() { # native_rates NAME < output
  awk -v name="$1" '$1 == name && $2 == ":" {
    rate = ""; found = "";
    for (i = 3; i <= NF; i++) {
      if ($i == "ops/sec") rate = $(i - 1);
      if ($i == "of" && $(i + 2) == "found)") found = substr($(i - 1), 2) "/" $(i + 1);
    }
    print rate, found
  }'
}

native_mean() { # native_mean OPERATION THREADS NAME OUTPUT: the mean of all runs but the first
  native_rates "$3" <"$4" | awk -v op="$1" -v t="$2" -v file="$4" '
    { split($2, f, "/"); if (f[1] != f[2]) { print "db_bench found " $2 " keys in " file > "/dev/stderr"; exit 1 } }
    NR > 1 { sum += $1; n++ }
    END { if (n == 0) { print "no db_bench result in " file > "/dev/stderr"; exit 1 }
          printf "%s\t%s\tnative\t%.0f\n", op, t, sum / n }' >>"$results"
}

measured_seconds=$((ITERATIONS * SECONDS_PER_ITERATION))
echo "db_bench: loading $KEYS keys and compacting them"
"$DB_BENCH" "${native_flags[@]}" --db="$WORK/native-read" --benchmarks=fillseq,compact \
  --num="$KEYS" --threads=1 >"$WORK/native-load.log" 2>&1
for t in $THREADS; do
  echo "db_bench, $t thread(s): fill"
  fills=$(printf 'fillrandom,%.0s' $(seq 0 "$ITERATIONS"))
  "$DB_BENCH" "${native_flags[@]}" --db="$WORK/native-fill" --benchmarks="${fills%,}" \
    --num=$((KEYS * 1000)) --writes=$((KEYS / t)) --threads="$t" >"$WORK/native-fill-$t.log" 2>&1
  native_mean fill "$t" fillrandom "$WORK/native-fill-$t.log"
  echo "db_bench, $t thread(s): get, scan-100"
  "$DB_BENCH" "${native_flags[@]}" --db="$WORK/native-read" --use_existing_db=true \
    --benchmarks=readrandom,readrandom,seekrandom,seekrandom --seek_nexts=99 \
    --num="$KEYS" --duration="$measured_seconds" --threads="$t" >"$WORK/native-read-$t.log" 2>&1
  native_mean get "$t" readrandom "$WORK/native-read-$t.log"
  native_mean scan-100 "$t" seekrandom "$WORK/native-read-$t.log"
done
load_after=$(cut -d' ' -f1 /proc/loadavg)

niceness=$(ps -o ni= -p $$ | tr -d ' ')
native_version=$("$DB_BENCH" --version 2>&1 | sed -n 's/.*version \([0-9.]*\).*/\1/p' | head -1)
jni_version=$(sed -n 's:.*<rocksdb.version>\(.*\)</rocksdb.version>.*:\1:p' pom.xml)
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
memory=$(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)

table=$(
  echo "<!-- engine-suite:start -->"
  echo "Run $(date -u +%Y-%m-%d): $(nproc) vCPUs of an $cpu, $memory, $(java -version 2>&1 | head -1 | tr -d '"');"
  echo "load average $load_before before and $load_after after the run. RocksDB $jni_version through JNI, db_bench $native_version."
  echo "$KEYS keys; reads: $WARMUPS warm-up and $ITERATIONS measured iterations of ${SECONDS_PER_ITERATION} s; fills: 1 warm-up and $ITERATIONS measured."
  echo "Command: \`KEYS=$KEYS THREADS=\"$THREADS\" WARMUPS=$WARMUPS ITERATIONS=$ITERATIONS SECONDS_PER_ITERATION=$SECONDS_PER_ITERATION$( ((niceness != 0)) && echo " nice -n $niceness") kv-bench/scripts/engine-suite.sh\`"
  echo
  echo "| operation | threads | LSM ops/s | RocksDB JNI ops/s | RocksDB native ops/s | LSM / native | LSM / JNI | goal, LSM / native |"
  echo "|---|---|---|---|---|---|---|---|"
  python3 - "$results" <<'PY'
import sys
rates = {}
for line in open(sys.argv[1]):
    op, threads, engine, rate = line.split("\t")
    rates[(op, int(threads), engine)] = float(rate)
goals = {"fill": 2, "get": 2, "scan-100": 3}
for op in ("fill", "get", "scan-100"):
    for threads in sorted({t for (o, t, _) in rates if o == op}):
        lsm, jni, native = (rates.get((op, threads, e)) for e in ("lsm", "jni", "native"))
        ratio = lambda a, b: f"{a / b:.2f}x" if a and b else "-"
        rate = lambda r: f"{r:,.0f}" if r else "-"
        print(f"| {op} | {threads} | {rate(lsm)} | {rate(jni)} | {rate(native)} | **{ratio(lsm, native)}** "
              f"| {ratio(lsm, jni)} | {goals[op]}x |")
PY
  echo "<!-- engine-suite:end -->"
)
echo "$table"
write_section engine-suite "$OUT" "$table"
