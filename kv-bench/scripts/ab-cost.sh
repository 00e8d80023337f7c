#!/usr/bin/env bash
# What a setting costs: two setups, A and B, each a single node or a 3-node cluster on this machine,
# loaded in turn (A, B, B, A, A, B ...) in the same run, ROUNDS times per operation: first the
# closed-loop maximum rate, then an open loop at HALF of the lower of the two median maxima (or at
# RATE when given), with the p99 of each and the nodes' CPU time per request (user + system of every
# node of the setup, from /proc; warm-up included, alike for both). Prints the median of each over the
# rounds and B's median against A's. Only the setup under load is busy; the other one idles. With
# SHARED=1 both sides load the same nodes (started with A_FLAGS) and differ only in their load flags.
# Stops every process it started.
#
#   A_NAME=on B_NAME=off A_FLAGS="--metrics on" B_FLAGS="--metrics off" kv-bench/scripts/ab-cost.sh
#   NODES=3 A_FLAGS="--hints on --read-repair blocking" B_FLAGS="--hints off --read-repair off" \
#     LOAD_FLAGS="--ack 2 --from 3" kv-bench/scripts/ab-cost.sh
#   NODES=3 SHARED=1 A_LOAD="--routing replica" B_LOAD="--routing targets" kv-bench/scripts/ab-cost.sh
#   TLS=a kv-bench/scripts/ab-cost.sh    # A speaks TLS (certificates made here), B plain HTTP
#
# Environment: NODES (1 or 3), A_FLAGS/B_FLAGS (server flags of each side), NODE_FLAGS (server flags
# of both; default one event loop, and for 3 nodes one storage thread and java.nio as http-suite.sh's
# cluster nodes), A_LOAD/B_LOAD and LOAD_FLAGS (load generator flags of each side and of both), TLS
# (a, b or both: that side's nodes serve and speak TLS, mutual between nodes), OPS, KEYS, ROUNDS,
# DURATION, WARMUP, CONNECTIONS, HALF, RATE, SCRAPE_S (read /metrics of the side under load every
# SCRAPE_S seconds, as Prometheus would; 0 = never).
set -euo pipefail

cd "$(dirname "$0")/../.."
NODES=${NODES:-1}
SHARED=${SHARED:-0}
KEYS=${KEYS:-200000}
ROUNDS=${ROUNDS:-5}
DURATION=${DURATION:-10}
WARMUP=${WARMUP:-5}
CONNECTIONS=${CONNECTIONS:-64}
HALF=${HALF:-0.5}
RATE=${RATE:-}
SCRAPE_S=${SCRAPE_S:-0}
OPS=${OPS:-get put}
A_NAME=${A_NAME:-A}
B_NAME=${B_NAME:-B}
A_FLAGS=${A_FLAGS:-}
B_FLAGS=${B_FLAGS:-}
A_LOAD=${A_LOAD:-}
B_LOAD=${B_LOAD:-}
LOAD_FLAGS=${LOAD_FLAGS:-}
TLS=${TLS:-}
if [[ $NODES == 1 ]]; then
  NODE_FLAGS=${NODE_FLAGS:---event-loops 1}
else
  NODE_FLAGS=${NODE_FLAGS:---event-loops 1 --storage-threads 1 --transport nio --background-priority 19}  # nodes share the cores: docs/TUNING.md
fi
BASE_PORT=${BASE_PORT:-18280}
SERVER_JAR=${SERVER_JAR:-kv-server/target/kv-server.jar}
BENCH_JAR=${BENCH_JAR:-kv-bench/target/benchmarks.jar}
WORK=${WORK:-$(mktemp -d -t kvstore-ab-cost.XXXXXX)}
mkdir -p "$WORK"

source kv-bench/scripts/processes.sh  # the working directory is the repository root
source kv-bench/scripts/results.sh


uses_tls() { [[ $TLS == both || $TLS == "$1" ]]; }

make_certificates() { # a CA, and one certificate for 127.0.0.1 that every node serves and presents
  openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=kvstore-bench-ca \
    -keyout "$WORK/ca-key.pem" -out "$WORK/ca.pem" 2>/dev/null
  openssl req -newkey rsa:2048 -nodes -subj /CN=127.0.0.1 \
    -keyout "$WORK/node-key.pem" -out "$WORK/node.csr" 2>/dev/null
  printf 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n' >"$WORK/node.ext"
  openssl x509 -req -in "$WORK/node.csr" -CA "$WORK/ca.pem" -CAkey "$WORK/ca-key.pem" -CAcreateserial \
    -days 2 -extfile "$WORK/node.ext" -out "$WORK/node.pem" 2>/dev/null
}
[[ -n $TLS ]] && make_certificates

declare -A side_pids side_targets
start_side() { # start_side SIDE FIRST_PORT FLAGS
  local side=$1 first=$2 flags=$3 scheme=http urls="" port
  local tls=()
  if uses_tls "${side,,}"; then
    scheme=https
    tls=(--tls-cert "$WORK/node.pem" --tls-key "$WORK/node-key.pem" --tls-ca "$WORK/ca.pem")
  fi
  for ((i = 0; i < NODES; i++)); do urls+="${urls:+,}$scheme://127.0.0.1:$((first + i))"; done
  side_targets[$side]=$urls
  for ((i = 0; i < NODES; i++)); do
    port=$((first + i))
    local args=(--port "$port" --data-dir "$WORK/$side-$port")
    [[ $NODES != 1 ]] && args+=(--cluster "$urls" --self "$scheme://127.0.0.1:$port")
    # shellcheck disable=SC2086 # flags are lists of flags
    java -jar "$SERVER_JAR" "${args[@]}" "${tls[@]}" $NODE_FLAGS $flags >"$WORK/$side-$port.log" 2>&1 &
    pids+=($!)
    side_pids[$side]+="$! "
  done
  for ((i = 0; i < NODES; i++)); do wait_for_port $((first + i)); done
}

load_flags() { # load_flags SIDE -> the generator's flags for that side
  local own=$A_LOAD
  [[ $1 == B ]] && own=$B_LOAD
  local nodes=${1,,}
  [[ $SHARED == 1 ]] && nodes=a  # both sides load side A's nodes
  if uses_tls "$nodes"; then printf -- '--tls --tls-ca %s ' "$WORK/ca.pem"; fi
  echo "$LOAD_FLAGS $own"
}

start_side A "$BASE_PORT" "$A_FLAGS"
if [[ $SHARED == 1 ]]; then
  side_targets[B]=${side_targets[A]}
  side_pids[B]=${side_pids[A]}
else
  start_side B $((BASE_PORT + 10)) "$B_FLAGS"
fi
for side in A B; do
  [[ $SHARED == 1 && $side == B ]] && continue
  echo "preloading $KEYS keys into $side" >&2
  # shellcheck disable=SC2046 # load_flags prints a list of flags
  java -cp "$BENCH_JAR" io.kvstore.bench.load.LoadGenerator --targets "${side_targets[$side]}" \
    --preload "$KEYS" --connections "$CONNECTIONS" $(load_flags "$side") >>"$WORK/progress.log" 2>&1
done
# shellcheck disable=SC2086 # a list of pids
wait_idle ${side_pids[A]} ${side_pids[B]}

TICK_US=$((1000000 / $(getconf CLK_TCK)))
run() { # run SIDE OPS [ARGS...] -> the RESULT line with cpu_us_per_req= added
  local side=$1 ops=$2 out scraper="" before after first_url
  first_url=${side_targets[$side]%%,*}
  if [[ $SCRAPE_S != 0 ]]; then
    (while true; do curl -sk -o /dev/null "$first_url/metrics"; sleep "$SCRAPE_S"; done) &
    scraper=$!
  fi
  # shellcheck disable=SC2086 # a list of pids
  before=$(cpu_ticks ${side_pids[$side]})
  # shellcheck disable=SC2046 # load_flags prints a list of flags
  out=$(java -cp "$BENCH_JAR" io.kvstore.bench.load.LoadGenerator --targets "${side_targets[$side]}" --ops "$ops" \
    --keys "$KEYS" --connections "$CONNECTIONS" --duration "$DURATION" --warmup "$WARMUP" \
    $(load_flags "$side") "${@:3}" 2>>"$WORK/progress.log") || true
  # shellcheck disable=SC2086
  after=$(cpu_ticks ${side_pids[$side]})
  if [[ -n $scraper ]]; then kill "$scraper" 2>/dev/null || true; wait "$scraper" 2>/dev/null || true; fi
  out=$(grep '^RESULT' <<<"$out") || { echo "no result from $side ($ops); see $WORK/progress.log" >&2; return 1; }
  echo "$out cpu_us_per_req=$(awk -v t=$((after - before)) -v us="$TICK_US" -v r="$(field rps "$out")" \
    -v s=$((DURATION + WARMUP)) 'BEGIN { printf "%.1f", t * us / (r * s) }')"
}

ratio() { awk -v b="$1" -v a="$2" 'BEGIN { printf "%+.1f%%", (b / a - 1) * 100 }'; }

echo "Run $(date -u '+%Y-%m-%d %H:%M') UTC, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) at the start;" \
  "NODES=$NODES KEYS=$KEYS ROUNDS=$ROUNDS DURATION=$DURATION WARMUP=$WARMUP CONNECTIONS=$CONNECTIONS"
echo "A ($A_NAME): ${A_FLAGS:-defaults} ${A_LOAD}; B ($B_NAME): ${B_FLAGS:-defaults} ${B_LOAD}; both: $NODE_FLAGS $LOAD_FLAGS${TLS:+; TLS on $TLS}"
echo
echo "| op | loop | side | median req/s | median p99 ms | median CPU us/req | rounds (req/s, p99 ms, CPU us/req) |"
echo "|---|---|---|---|---|---|---|"
summary=()
for ops in $OPS; do
  declare -A rps=() p99=() cpu=() rounds=()
  for loop in closed open; do
    args=()
    if [[ $loop == open ]]; then
      rate=${RATE:-$(awk -v a="$(median "${rps[A.closed]}")" -v b="$(median "${rps[B.closed]}")" -v h="$HALF" \
        'BEGIN { m = a < b ? a : b; printf "%d", m * h }')}
      args=(--rate "$rate")
    fi
    for round in $(seq 1 "$ROUNDS"); do
      order="A B"
      (( round % 2 == 0 )) && order="B A"
      for side in $order; do
        result=$(run "$side" "$ops" "${args[@]}")
        echo "round $round $ops $loop $side: $result" >>"$WORK/progress.log"
        rps[$side.$loop]+="$(field rps "$result") "
        p99[$side.$loop]+="$(field p99 "$result") "
        cpu[$side.$loop]+="$(field cpu_us_per_req "$result") "
        rounds[$side.$loop]+="$(field rps "$result"),$(field p99 "$result"),$(field cpu_us_per_req "$result") "
      done
    done
    label=$loop
    [[ $loop == open ]] && label="open at $rate/s"
    for side in A B; do
      name=$A_NAME
      [[ $side == B ]] && name=$B_NAME
      echo "| ${ops^^} | $label | $name | $(median "${rps[$side.$loop]}") | $(median "${p99[$side.$loop]}") | $(median "${cpu[$side.$loop]}") | ${rounds[$side.$loop]}|"
    done
    summary+=("${ops^^} $label: $B_NAME against $A_NAME: req/s $(ratio "$(median "${rps[B.$loop]}")" "$(median "${rps[A.$loop]}")"), p99 $(ratio "$(median "${p99[B.$loop]}")" "$(median "${p99[A.$loop]}")"), CPU/req $(ratio "$(median "${cpu[B.$loop]}")" "$(median "${cpu[A.$loop]}")")")
  done
  unset rps p99 cpu rounds
done
echo
printf '%s\n' "${summary[@]}"
