# Sourced by the suite scripts: reads the load generator's RESULT lines, takes medians, and puts a
# suite's results into a Markdown page.

# field NAME LINE: the value of NAME=... in a RESULT line.
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }

# median "V1 V2 ...": the median of numbers separated by spaces.
median() { tr ' ' '\n' <<<"$1" | grep . | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# write_section NAME FILE TEXT: TEXT (which starts with <!-- NAME:start --> and ends with
# <!-- NAME:end -->) replaces what lies between those markers in FILE, or is appended if FILE has none.
write_section() {
  local name=$1 file=$2 text=$3
  if grep -q "<!-- $name:start -->" "$file" 2>/dev/null; then
    python3 - "$file" "$name" "$text" <<'PY'
import re, sys
path, name, text = sys.argv[1], sys.argv[2], sys.argv[3]
page = open(path).read()
pattern = "<!-- " + re.escape(name) + ":start -->.*?<!-- " + re.escape(name) + ":end -->"
open(path, "w").write(re.sub(pattern, lambda m: text, page, flags=re.S))
PY
  else
    printf '\n%s\n' "$text" >>"$file"
  fi
  echo "wrote the table into $file"
}

# phase_table WINDOWS PHASE...: a Markdown table of the p99 of a load's one-second windows (the generator's
# --interval-log at --interval 1) per phase, the median and the worst, each with its ratio to the first
# phase's median. A PHASE is "NAME:FROM TO[ FROM TO ...]", the measured seconds it covers (inclusive
# spans); a phase without windows is left out.
phase_table() {
  python3 - "$@" <<'PY'
import statistics, sys
rows = [(int(r[0]), float(r[3])) for r in (line.split() for line in open(sys.argv[1]) if not line.startswith('#'))]
phases = []
for phase in sys.argv[2:]:
    name, spans = phase.split(':', 1)
    bounds = list(map(int, spans.split()))
    phases.append((name, [p for s, p in rows if any(a <= s <= b for a, b in zip(bounds[::2], bounds[1::2]))]))
base = statistics.median(phases[0][1])
print("| phase | 1 s windows | p99 median (ms) | worst 1 s p99 (ms) |")
print("|---|---|---|---|")
for name, p99s in phases:
    if p99s:
        m = statistics.median(p99s)
        print(f"| {name} | {len(p99s)} | {m:.2f} ({m / base:.2f}x) | {max(p99s):.2f} ({max(p99s) / base:.1f}x) |")
PY
}
