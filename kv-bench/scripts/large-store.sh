#!/usr/bin/env bash
# Point reads of a store much larger than the heap against one that fits: LargeStoreBenchmark runs twice
# in a JVM of HEAP, first on a small store (SMALL, default a quarter of the heap), then on a large one
# (STORE_GB GiB, default 10 times a 1 GiB heap), each filled fresh in key order with VALUE_BYTES-byte
# values and read at the same RATE from THREADS threads for DURATION seconds (open loop, latency from
# when each read was due). PAGE_CACHE says what the kernel's page cache holds when the reads start:
# mapped (the default: written back, then every table mapped, loaded and kept mapped until the reads
# end, so both stores are read from memory and only the store's size against the heap differs),
# warmed (written back, then every table read once: the same, unless the kernel reclaims page cache
# no process maps once it is idle, as DAMON's pageout with an unmapped filter does; the major faults
# column tells), dropped (emptied, so the large store is read from the device, as on a machine whose
# memory it exceeds; needs root) or kept (as the fill left it, write-back still running). Prints both
# rows and the ratio of the p99s. Deletes both stores.
#
#   kv-bench/scripts/large-store.sh                                      # 1 GiB heap: 256 MiB and 10 GiB
#   PAGE_CACHE=dropped kv-bench/scripts/large-store.sh                 # the large store read from the device
#   HEAP=192m STORE_GB=0.5 RATE=500 DURATION=10 kv-bench/scripts/large-store.sh   # a quick run
#
# HEAP must hold the engine's default memtables (32 MiB, up to two more waiting to be flushed): 192m
# or more.
# Environment: HEAP, SMALL (a size such as 256m; default HEAP/4), STORE_GB, VALUE_BYTES, RATE, THREADS,
# DURATION, WARMUP, PAGE_CACHE, JAVA_OPTS (more JVM options, e.g. -Xlog:gc), WORK (where the stores are made; default a new temporary directory).
set -euo pipefail

cd "$(dirname "$0")/../.."
HEAP=${HEAP:-1g}
STORE_GB=${STORE_GB:-10}
VALUE_BYTES=${VALUE_BYTES:-1024}
RATE=${RATE:-2000}
THREADS=${THREADS:-4}
DURATION=${DURATION:-60}
WARMUP=${WARMUP:-5}
PAGE_CACHE=${PAGE_CACHE:-mapped}
JAVA_OPTS=${JAVA_OPTS:-}
BENCH_JAR=${BENCH_JAR:-kv-bench/target/benchmarks.jar}
WORK=${WORK:-$(mktemp -d -t kvstore-large-store.XXXXXX)}
mkdir -p "$WORK"

source kv-bench/scripts/processes.sh  # the working directory is the repository root
source kv-bench/scripts/results.sh
# A failed run keeps its logs, as processes.sh does, but not a store it was filling.
trap 'status=$?; if [[ $status == 0 ]]; then rm -rf "$WORK"; else rm -rf "$WORK"/fill-*; echo "failed; logs in $WORK" >&2; fi' EXIT

bytes() { # bytes SIZE -> bytes of a size such as 64m, 1g, 0.5g or 4096 (binary suffixes)
  awk -v s="${1,,}" 'BEGIN { n = s + 0; u = substr(s, length(s)); m = 1
    if (u == "k") m = 2^10; else if (u == "m") m = 2^20; else if (u == "g") m = 2^30; else if (u == "t") m = 2^40
    printf "%.0f", n * m }'  # %d stops at 2^31 - 1 in some awks
}
SMALL=${SMALL:-$(( $(bytes "$HEAP") / 4 ))}
LARGE=$(awk -v g="$STORE_GB" 'BEGIN { printf "%.0f", g * 2^30 }')

measure() { # measure SIZE -> the benchmark's RESULT line
  echo "store of $1 bytes in a $HEAP heap" >&2
  # shellcheck disable=SC2086 # JAVA_OPTS is a list of options
  java "-Xmx$HEAP" $JAVA_OPTS -cp "$BENCH_JAR" io.kvstore.bench.LargeStoreBenchmark --bytes "$1" --dir "$WORK" \
    --value-bytes "$VALUE_BYTES" --rate "$RATE" --threads "$THREADS" --duration "$DURATION" --warmup "$WARMUP" \
    --page-cache "$PAGE_CACHE" 2>>"$WORK/progress.log" | tee -a "$WORK/report.txt" | grep '^RESULT'
}
small=$(measure "$SMALL")
large=$(measure "$LARGE")

echo "Run $(date -u '+%Y-%m-%d %H:%M') UTC, $(nproc) cores, $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 2^20 }' /proc/meminfo) of memory," \
  "load average $(cut -d' ' -f1-3 /proc/loadavg) at the end; HEAP=$HEAP VALUE_BYTES=$VALUE_BYTES RATE=$RATE THREADS=$THREADS" \
  "DURATION=$DURATION WARMUP=$WARMUP"
echo
echo "| store | tables MiB | x heap | fill s | page cache | reads/s | p50 ms | p99 ms | p99.9 ms | max ms | block cache hits | GC pauses ms | MiB read from the device | major faults | minor faults | missing |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
row() {
  echo "| $1 | $(awk -v b="$(field table_bytes "$2")" 'BEGIN { printf "%.0f", b / 2^20 }') |" \
    "$(awk -v b="$(field table_bytes "$2")" -v h="$(field heap_bytes "$2")" 'BEGIN { printf "%.2f", b / h }') |" \
    "$(field fill_s "$2") | $(field page_cache "$2") | $(field rps "$2") | $(field p50 "$2") | $(field p99 "$2") |" \
    "$(field p999 "$2") | $(field max "$2") | $(awk -v h="$(field block_cache_hits "$2")" 'BEGIN { printf "%.0f%%", 100 * h }') |" \
    "$(field gc_ms "$2") ($(field gc "$2")) | $(field read_mib "$2") | $(field major_faults "$2") | $(field minor_faults "$2") |" \
    "$(field missing "$2") |"
}
row small "$small"
row large "$large"
echo
echo "p99 of the large store over the small one: $(awk -v l="$(field p99 "$large")" -v s="$(field p99 "$small")" \
  'BEGIN { printf (s > 0 ? "%.2fx" : "n/a"), (s > 0 ? l / s : 0) }')"
