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
