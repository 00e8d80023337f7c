#!/usr/bin/env bash
# How long hinted handoff takes to catch up a node that was down: three nodes take an open-loop PUT
# load at RATE req/s with ack=2&from=3 through the two nodes that stay up; DOWN_S seconds into the
# load the third node is killed (kill -9), DOWN_S seconds later it restarts on its data directory,
# and the load goes on for AFTER_S more seconds. Prints the hints the two coordinators stored for it, then the time from the
# restart until both report no hint pending for it (their /v0/status), and the write load's latency:
# over the run, and the p99 of its one-second windows (median and worst) before the kill, while the node
# was down, and while hints replayed, with each phase's ratio to the first.
# Anti-entropy is off, so only hints bring the node up to date. Stops every process it started.
#
#   kv-bench/scripts/hint-catchup.sh                      # 10k req/s, down 60 s
#   RATE=2000 DOWN_S=10 kv-bench/scripts/hint-catchup.sh  # a quick run
set -euo pipefail

cd "$(dirname "$0")/../.."
RATE=${RATE:-10000}
DOWN_S=${DOWN_S:-60}
KEYS=${KEYS:-10000000}
VALUE_SIZE=${VALUE_SIZE:-100}
CONNECTIONS=${CONNECTIONS:-64}
AFTER_S=${AFTER_S:-60}
WARMUP_S=${WARMUP_S:-10}  # a fresh generator and fresh nodes take seconds to reach the rate: not counted
CATCHUP_LIMIT_S=${CATCHUP_LIMIT_S:-600}
NODE_FLAGS=${NODE_FLAGS:---event-loops 1 --storage-threads 1 --transport nio --anti-entropy-interval-s 0 --background-priority 19}  # nodes share the cores: docs/TUNING.md
BASE_PORT=${BASE_PORT:-18380}
SERVER_JAR=${SERVER_JAR:-kv-server/target/kv-server.jar}
BENCH_JAR=${BENCH_JAR:-kv-bench/target/benchmarks.jar}
WORK=${WORK:-$(mktemp -d -t kvstore-hint-catchup.XXXXXX)}
mkdir -p "$WORK"

source kv-bench/scripts/processes.sh  # the working directory is the repository root
source kv-bench/scripts/results.sh

urls=()
for i in 0 1 2; do urls+=("http://127.0.0.1:$((BASE_PORT + i))"); done
cluster=$(IFS=,; echo "${urls[*]}")
start_node() { # start_node INDEX -> the node's pid in node_pid
  local port=$((BASE_PORT + $1))
  # shellcheck disable=SC2086 # NODE_FLAGS is a list of flags
  start_kv_node "$port" --data-dir "$WORK/data-$port" --cluster "$cluster" --self "${urls[$1]}" $NODE_FLAGS
  wait_for_port "$port"
}
for i in 0 1 2; do start_node "$i"; done
victim_pid=$node_pid
victim=${urls[2]}

pending() { # pending NODE_URL -> "hints bytes" kept on that node for the victim
  curl -s "$1/v0/status" | python3 -c '
import json, sys
peer = [p for p in json.load(sys.stdin)["peers"] if p["url"] == sys.argv[1]][0]
print(peer["hintsPending"], peer["hintBytesPending"])' "$victim"
}
total_pending() { # total_pending -> "hints bytes" over both coordinators
  local h0 b0 h1 b1
  read -r h0 b0 <<<"$(pending "${urls[0]}")"
  read -r h1 b1 <<<"$(pending "${urls[1]}")"
  echo "$((h0 + h1)) $((b0 + b1))"
}

load_s=$((DOWN_S * 2 + AFTER_S))
java -cp "$BENCH_JAR" io.kvstore.bench.load.LoadGenerator --targets "${urls[0]},${urls[1]}" --routing targets \
  --ops put --keys "$KEYS" --value-size "$VALUE_SIZE" --ack 2 --from 3 --rate "$RATE" \
  --connections "$CONNECTIONS" --duration "$load_s" --warmup "$WARMUP_S" --interval-log "$WORK/windows.txt" --interval 1 \
  >"$WORK/load.log" 2>"$WORK/load-progress.log" &
load_pid=$!
pids+=("$load_pid")
until grep -q ' s  measure' "$WORK/load-progress.log" 2>/dev/null; do sleep 0.1; done
load_start=$(date +%s.%N)  # the end of the first measured second, within a second
since_load() { awk -v a="$load_start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a + 1 }'; }

sleep "$DOWN_S"
killed_at=$(since_load)
kill -9 "$victim_pid"
wait "$victim_pid" 2>/dev/null || true
echo "$(date -u +%T) killed $victim; the load goes on for ${DOWN_S}s" >&2
sleep "$DOWN_S"
read -r hints bytes <<<"$(total_pending)"
start_node 2
restarted=$(date +%s.%N)
restarted_at=$(since_load)
echo "$(date -u +%T) restarted $victim with $hints hints ($bytes bytes) pending for it" >&2

caught_up=""
while [[ -z $caught_up ]]; do
  read -r left _ <<<"$(total_pending)"
  now=$(date +%s.%N)
  if [[ $left == 0 ]]; then
    caught_up=$(awk -v a="$restarted" -v b="$now" 'BEGIN { printf "%.1f", b - a }')
    caught_up_at=$(since_load)
  elif awk -v a="$restarted" -v b="$now" -v l="$CATCHUP_LIMIT_S" 'BEGIN { exit !(b - a > l) }'; then
    echo "still $left hints pending ${CATCHUP_LIMIT_S}s after the restart" >&2
    exit 1
  else
    sleep 0.5
  fi
done
wait "$load_pid" || { echo "the load generator failed; see $WORK/load.log" >&2; exit 1; }

echo "Run $(date -u '+%Y-%m-%d %H:%M') UTC, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg);" \
  "RATE=$RATE DOWN_S=$DOWN_S VALUE_SIZE=$VALUE_SIZE; nodes: $NODE_FLAGS"
echo
echo "| write load | down | hints pending at restart | hint bytes | caught up after restart | replay rate |"
echo "|---|---|---|---|---|---|"
echo "| $RATE PUT/s at 2/3 | ${DOWN_S} s | $hints | $bytes | ${caught_up} s | $(awk -v h="$hints" -v s="$caught_up" 'BEGIN { printf "%.0f hints/s", h / (s > 0 ? s : 1) }') |"
grep -E '^(RESULT|status)' "$WORK/load.log" || true
echo
replay_end=$((caught_up_at > restarted_at + 1 ? caught_up_at : restarted_at + 1))
phase_table "$WORK/windows.txt" "before the kill:0 $((killed_at - 1))" "node down:$((killed_at + 1)) $((restarted_at - 1))" \
  "hints replaying:$((restarted_at + 1)) $replay_end"
