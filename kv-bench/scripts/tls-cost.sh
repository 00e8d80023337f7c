#!/usr/bin/env bash
# What each TLS engine costs a node: two single nodes on this machine with the same certificate, one
# with --tls-engine jdk and one with --tls-engine openssl, measured in turn (jdk, openssl, jdk, openssl
# ...) in the same run, ROUNDS times:
#   - handshakes: `openssl s_time -new` opens a new TLS connection for every exchange for HANDSHAKE_S
#     seconds; prints the connections per second and the node's CPU time per handshake;
#   - keep-alive: the load generator sends GETs over CONNECTIONS TLS keep-alive connections in open loop
#     at RATE; prints the p99 and the node's CPU time per request (warm-up requests included, alike for
#     both nodes).
# CPU time is user + system of the node's process, from /proc. Prints the median of each over the rounds.
# The certificate is an ECDSA P-256 one made by the openssl command for the run. Stops every process
# it started.
#
#   kv-bench/scripts/tls-cost.sh                        # 5 rounds
#   ROUNDS=3 DURATION=5 kv-bench/scripts/tls-cost.sh    # a quick run
set -euo pipefail

cd "$(dirname "$0")/../.."
KEYS=${KEYS:-20000}
ROUNDS=${ROUNDS:-5}
HANDSHAKE_S=${HANDSHAKE_S:-5}
DURATION=${DURATION:-8}
WARMUP=${WARMUP:-3}
RATE=${RATE:-5000}
CONNECTIONS=${CONNECTIONS:-64}
CLIENT_ENGINE=${CLIENT_ENGINE:-openssl}
BASE_PORT=${BASE_PORT:-18190}
NODE_FLAGS=${NODE_FLAGS:---event-loops 1}
SERVER_JAR=${SERVER_JAR:-kv-server/target/kv-server.jar}
BENCH_JAR=${BENCH_JAR:-kv-bench/target/benchmarks.jar}
WORK=${WORK:-$(mktemp -d -t kvstore-tls-cost.XXXXXX)}
mkdir -p "$WORK"

source kv-bench/scripts/processes.sh  # the working directory is the repository root
source kv-bench/scripts/results.sh


# A CA and a node certificate for 127.0.0.1, as an operator would make them.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$WORK/ca.key" \
  -out "$WORK/ca.pem" -days 2 -subj "/CN=kvstore bench CA" 2>>"$WORK/progress.log"
openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$WORK/node.key" \
  -out "$WORK/node.csr" -subj "/CN=node" 2>>"$WORK/progress.log"
printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth\n' >"$WORK/ext.cnf"
openssl x509 -req -in "$WORK/node.csr" -CA "$WORK/ca.pem" -CAkey "$WORK/ca.key" -CAcreateserial \
  -out "$WORK/node.crt" -days 2 -extfile "$WORK/ext.cnf" 2>>"$WORK/progress.log"

declare -A port=([jdk]=$BASE_PORT [openssl]=$((BASE_PORT + 1))) pid=()
for engine in jdk openssl; do
  # shellcheck disable=SC2086
  java -jar "$SERVER_JAR" --port "${port[$engine]}" --data-dir "$WORK/$engine" --tls-cert "$WORK/node.crt" \
    --tls-key "$WORK/node.key" --tls-engine "$engine" $NODE_FLAGS >"$WORK/$engine.log" 2>&1 &
  pids+=($!)
  pid[$engine]=$!
done
for engine in jdk openssl; do
  wait_for_port "${port[$engine]}"
  java -cp "$BENCH_JAR" io.kvstore.bench.load.LoadGenerator --targets "https://127.0.0.1:${port[$engine]}" \
    --tls-ca "$WORK/ca.pem" --tls-engine "$CLIENT_ENGINE" --preload "$KEYS" --connections "$CONNECTIONS" \
    >>"$WORK/progress.log" 2>&1
done

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
TICK_US=$((1000000 / $(getconf CLK_TCK)))

handshakes() { # handshakes ENGINE -> "per_s=N cpu_us=C"
  local engine=$1 before after out count
  before=$(cpu_ticks "${pid[$engine]}")
  out=$(openssl s_time -connect "127.0.0.1:${port[$engine]}" -new -time "$HANDSHAKE_S" 2>>"$WORK/progress.log" </dev/null)
  after=$(cpu_ticks "${pid[$engine]}")
  count=$(sed -n 's/^\([0-9]*\) connections in [0-9.]* real seconds.*/\1/p' <<<"$out" | head -1)
  awk -v n="$count" -v s="$HANDSHAKE_S" -v t=$((after - before)) -v us="$TICK_US" \
    'BEGIN { printf "per_s=%.0f cpu_us=%.0f\n", n / s, t * us / n }'
}

keep_alive() { # keep_alive ENGINE -> the RESULT line with cpu_us_per_req= added
  local engine=$1 before after out
  before=$(cpu_ticks "${pid[$engine]}")
  out=$(java -cp "$BENCH_JAR" io.kvstore.bench.load.LoadGenerator --targets "https://127.0.0.1:${port[$engine]}" \
    --tls-ca "$WORK/ca.pem" --tls-engine "$CLIENT_ENGINE" --ops get --keys "$KEYS" --connections "$CONNECTIONS" \
    --duration "$DURATION" --warmup "$WARMUP" --rate "$RATE" 2>>"$WORK/progress.log")
  after=$(cpu_ticks "${pid[$engine]}")
  out=$(grep '^RESULT' <<<"$out")
  echo "$out cpu_us_per_req=$(awk -v t=$((after - before)) -v us="$TICK_US" -v r="$(field rps "$out")" \
    -v s=$((DURATION + WARMUP)) 'BEGIN { printf "%.1f", t * us / (r * s) }')"
}

declare -A hs=() hs_cpu=() p99=() cpu=()
for round in $(seq 1 "$ROUNDS"); do
  for engine in jdk openssl; do
    h=$(handshakes "$engine")
    k=$(keep_alive "$engine")
    echo "round $round $engine: handshakes $h; keep-alive $k" >>"$WORK/progress.log"
    hs[$engine]+="$(field per_s " $h") "
    hs_cpu[$engine]+="$(field cpu_us " $h") "
    p99[$engine]+="$(field p99 "$k") "
    cpu[$engine]+="$(field cpu_us_per_req "$k") "
  done
done

echo "| engine | handshakes/s | node CPU us per handshake | p99 ms at $RATE req/s, keep-alive | node CPU us per keep-alive request | rounds: handshakes/s |"
echo "|---|---|---|---|---|---|"
for engine in jdk openssl; do
  echo "| $engine | $(median "${hs[$engine]}") | $(median "${hs_cpu[$engine]}") | $(median "${p99[$engine]}") | $(median "${cpu[$engine]}") | ${hs[$engine]}|"
done
