#!/usr/bin/env bash
# What the scrub costs the foreground: ScrubBenchmark's point get with the scrub off and at
# its default rate (and, with SCRUBS="off default unlimited", unthrottled), the settings taking turns
# (off, default, default, off, ...) ROUNDS times, one JMH fork each. Prints each setting's median
# over the rounds, in microseconds per operation, against the scrub-off one, and the median of the
# rounds' own ratios (each round's setting against that round's scrub-off run, next to it in time),
# which a machine whose load moves between rounds blurs less.
#
#   kv-bench/scripts/scrub-cost.sh
#   ROUNDS=7 SCRUBS="off default unlimited" kv-bench/scripts/scrub-cost.sh
#
# Environment: ROUNDS, SCRUBS, OPS, KEYS (of the preloaded store), JMH_FLAGS (extra JMH options).
set -euo pipefail

cd "$(dirname "$0")/../.."
ROUNDS=${ROUNDS:-5}
SCRUBS=${SCRUBS:-off default}
OPS=${OPS:-get}
KEYS=${KEYS:-1000000}
JMH_FLAGS=${JMH_FLAGS:-}
BENCH_JAR=${BENCH_JAR:-kv-bench/target/benchmarks.jar}
WORK=${WORK:-$(mktemp -d -t kvstore-scrub-cost.XXXXXX)}
mkdir -p "$WORK"

source kv-bench/scripts/results.sh  # median

read -r -a settings <<<"$SCRUBS"
declare -A scores
for ((round = 1; round <= ROUNDS; round++)); do
  order=("${settings[@]}")
  if ((round % 2 == 0)); then  # alternate which setting goes first
    mapfile -t order < <(printf '%s\n' "${settings[@]}" | tac)
  fi
  for op in $OPS; do
    for scrub in "${order[@]}"; do
      out="$WORK/$op-$scrub-$round.csv"
      # shellcheck disable=SC2086
      java -jar "$BENCH_JAR" "ScrubBenchmark\.$op\$" -p scrub="$scrub" -p keys="$KEYS" -rf csv -rff "$out" $JMH_FLAGS \
        >"$WORK/$op-$scrub-$round.log" 2>&1
      score=$(awk -F, 'NR == 2 { print $5 }' "$out")
      scores[$op,$scrub]="${scores[$op,$scrub]:-} $score"
      echo "round $round: $op, scrub $scrub: $score us/op"
    done
  done
done

echo
echo "| operation | scrub | median us/op (rounds) | against off | median of the rounds' ratios |"
echo "|---|---|---|---|---|"
for op in $OPS; do
  base=$(median "${scores[$op,off]:-}")
  for scrub in "${settings[@]}"; do
    m=$(median "${scores[$op,$scrub]}")
    ratio=$(awk -v m="$m" -v b="$base" 'BEGIN { if (b > 0) printf "%.2fx", m / b; else print "-" }')
    paired=$(paste -d' ' <(tr ' ' '\n' <<<"${scores[$op,$scrub]# }") <(tr ' ' '\n' <<<"${scores[$op,off]# }") \
      | awk '$2 > 0 { printf "%s ", $1 / $2 }')
    echo "| $op | $scrub | $m (${scores[$op,$scrub]# }) | $ratio | $(median "$paired" | awk '{ printf "%.2fx", $1 }') |"
  done
done
