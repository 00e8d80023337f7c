#!/usr/bin/env bash
# What metrics cost a node: two single nodes on this machine, one with --metrics on and one with
# --metrics off, loaded in turn (on, off, on, off ...) in the same run, ROUNDS times per operation:
# the closed-loop maximum rate with its p99, then an open loop at RATE with its p99, and for both the
# node's CPU time per request (user + system, from /proc; warm-up requests included, alike for both
# nodes). Prints the median of each over the rounds. A scraper reads the /metrics of the node under
# load every SCRAPE_S seconds, as Prometheus would. Only the node under load is busy; the other one
# idles. Stops every process it started.
#
#   kv-bench/scripts/metrics-cost.sh                       # 7 rounds of 10 s per node, operation and loop
#   ROUNDS=3 DURATION=5 kv-bench/scripts/metrics-cost.sh   # a quick run
set -euo pipefail

cd "$(dirname "$0")/../.."
KEYS=${KEYS:-200000}
ROUNDS=${ROUNDS:-7}
DURATION=${DURATION:-10}
RATE=${RATE:-2000}
WARMUP=${WARMUP:-5}
CONNECTIONS=${CONNECTIONS:-64}
SCRAPE_S=${SCRAPE_S:-5}
BASE_PORT=${BASE_PORT:-18180}
NODE_FLAGS=${NODE_FLAGS:---event-loops 1}
OPS=${OPS:-get put}
SERVER_JAR=${SERVER_JAR:-kv-server/target/kv-server.jar}
BENCH_JAR=${BENCH_JAR:-kv-bench/target/benchmarks.jar}
WORK=${WORK:-$(mktemp -d -t kvstore-metrics-cost.XXXXXX)}
mkdir -p "$WORK"

source kv-bench/scripts/processes.sh  # the working directory is the repository root

field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

on_port=$BASE_PORT
off_port=$((BASE_PORT + 1))
# shellcheck disable=SC2086
java -jar "$SERVER_JAR" --port "$on_port" --data-dir "$WORK/on" --metrics on $NODE_FLAGS >"$WORK/on.log" 2>&1 &
pids+=($!)
on_pid=$!
# shellcheck disable=SC2086
java -jar "$SERVER_JAR" --port "$off_port" --data-dir "$WORK/off" --metrics off $NODE_FLAGS >"$WORK/off.log" 2>&1 &
pids+=($!)
off_pid=$!
wait_for_port "$on_port"
wait_for_port "$off_port"
for port in "$on_port" "$off_port"; do
  java -cp "$BENCH_JAR" io.kvstore.bench.load.LoadGenerator --targets "http://127.0.0.1:$port" --preload "$KEYS" \
    --connections "$CONNECTIONS" >>"$WORK/progress.log" 2>&1
done

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
TICK_US=$((1000000 / $(getconf CLK_TCK)))

run() { # run PORT PID OPS [ARGS...] -> the RESULT line with cpu_us_per_req= added; scrapes /metrics meanwhile
  local port=$1 pid=$2 ops=$3 out scraper before after
  (while true; do curl -s -o /dev/null "http://127.0.0.1:$port/metrics"; sleep "$SCRAPE_S"; done) &
  scraper=$!
  before=$(cpu_ticks "$pid")
  out=$(java -cp "$BENCH_JAR" io.kvstore.bench.load.LoadGenerator --targets "http://127.0.0.1:$port" --ops "$ops" \
    --keys "$KEYS" --connections "$CONNECTIONS" --duration "$DURATION" --warmup "$WARMUP" "${@:4}" 2>>"$WORK/progress.log")
  after=$(cpu_ticks "$pid")
  kill "$scraper" 2>/dev/null || true
  wait "$scraper" 2>/dev/null || true
  out=$(grep '^RESULT' <<<"$out")
  echo "$out cpu_us_per_req=$(awk -v t=$((after - before)) -v us="$TICK_US" -v r="$(field rps "$out")" \
    -v s=$((DURATION + WARMUP)) 'BEGIN { printf "%.1f", t * us / (r * s) }')"
}

col() { tr ' ' '\n' <<<"$1" | grep . | median; }

echo "| op | loop | metrics | median req/s | median p99 ms | median CPU us/req | rounds (req/s, p99 ms, CPU us/req) |"
echo "|---|---|---|---|---|---|---|"
for ops in $OPS; do
  for loop in closed open; do
    declare -A rps=() p99=() cpu=() rounds=()
    for round in $(seq 1 "$ROUNDS"); do
      for mode in on off; do
        port=$on_port pid=$on_pid
        [[ $mode == off ]] && port=$off_port pid=$off_pid
        args=()
        [[ $loop == open ]] && args=(--rate "$RATE")
        result=$(run "$port" "$pid" "$ops" "${args[@]}")
        echo "round $round $ops $loop metrics $mode: $result" >>"$WORK/progress.log"
        rps[$mode]+="$(field rps "$result") "
        p99[$mode]+="$(field p99 "$result") "
        cpu[$mode]+="$(field cpu_us_per_req "$result") "
        rounds[$mode]+="$(field rps "$result"),$(field p99 "$result"),$(field cpu_us_per_req "$result") "
      done
    done
    for mode in on off; do
      echo "| $ops | $loop | $mode | $(col "${rps[$mode]}") | $(col "${p99[$mode]}") | $(col "${cpu[$mode]}") | ${rounds[$mode]}|"
    done
    unset rps p99 cpu rounds
  done
done
