#!/usr/bin/env bash
# Where the nodes' cores, allocations and lock waits go under one load scenario, read by async-profiler
# (the library kv-bench's build unpacks into kv-bench/target/profiler/). Starts NODES nodes (1, or 3
# taking requests with ack=2&from=3), preloads KEYS keys for a scenario that reads, runs the load
# generator's SCENARIO open-loop at RATE req/s and, once its WARMUP_S warm-up is over, profiles every
# node for DURATION_S seconds per event, one event after another while the load goes on: cpu, alloc
# (bytes allocated), lock (time waited on contended monitors and locks). The profiler is loaded into
# the running nodes (jcmd JVMTI.agent_load), so the warm-up and the preload are not in the profiles.
#
# Writes into OUT, for each node (node-PORT/): EVENT.html, the flame graph, and EVENT.collapsed, one
# stack per line with its samples (cpu), bytes (alloc) or nanoseconds (lock); and summary.txt: for
# every node and event the frames with the largest self share, the Java methods the samples were in
# (the deepest Java frame of each stack), our own (io.kvstore) frames by total share (them and what
# they call), and the load's rate and p99 during each window; load.log is the generator's progress.
#
#   kv-bench/scripts/profile.sh                                    # 1 node, PUT at 5,000/s, 30 s per event
#   SCENARIO=get kv-bench/scripts/profile.sh                       # GETs of 1M preloaded keys
#   SCENARIO=range RATE=500 kv-bench/scripts/profile.sh            # ranges of 100 of those keys
#   NODES=3 RATE=2000 kv-bench/scripts/profile.sh                  # 3 nodes, PUT with ack=2&from=3
#   DURATION_S=5 WARMUP_S=5 kv-bench/scripts/profile.sh kv-bench/target/profiles/quick --distribution zipfian
#
# Arguments: [OUT] [LOAD GENERATOR OPTIONS...], the options added to the generator's (LOAD_FLAGS too).
# Environment: NODES (1 or 3), SCENARIO (put, get, range, or any --ops mix of the generator such as
# put=1,get=3; a mix that reads preloads), RATE, DURATION_S (per event), WARMUP_S, EVENTS (default
# "cpu alloc lock"), OUT (default kv-bench/target/profiles/SCENARIO-NODESn-TIME), KEYS, RANGE_KEYS
# (keys per range, each read from one node's own store: with 3 nodes at RF 3, every key), VALUE_SIZE,
# CONNECTIONS, NODE_FLAGS, NODE_JAVA_OPTS, LOAD_JAVA_OPTS, LOAD_FLAGS, CPU_EVENT (default cpu:
# perf_events where the kernel lets the node open them, else async-profiler's own itimer fallback;
# ctimer where kernel.perf_event_paranoid > 2 forbids them outright), CPU_INTERVAL, ALLOC_INTERVAL
# (bytes between allocation samples), LOCK_THRESHOLD (shorter waits are not recorded), TOP (rows per
# table of the summary), BASE_PORT, SERVER_JAR (the node's jar; when absent, the server's main class in
# BENCH_JAR), BENCH_JAR, PROFILER_LIB, KEEP (keep the nodes' data and logs).
set -euo pipefail

cd "$(dirname "$0")/../.."
NODES=${NODES:-1}
SCENARIO=${SCENARIO:-put}
RATE=${RATE:-5000}
DURATION_S=${DURATION_S:-30}
WARMUP_S=${WARMUP_S:-30}  # fresh JVMs on both sides take tens of seconds to compile their request paths
EVENTS=${EVENTS:-cpu alloc lock}
KEYS=${KEYS:-1000000}
RANGE_KEYS=${RANGE_KEYS:-100}
VALUE_SIZE=${VALUE_SIZE:-100}
CONNECTIONS=${CONNECTIONS:-64}
NODE_JAVA_OPTS=${NODE_JAVA_OPTS:-}
LOAD_JAVA_OPTS=${LOAD_JAVA_OPTS:-}
LOAD_FLAGS=${LOAD_FLAGS:-}
CPU_INTERVAL=${CPU_INTERVAL:-1ms}
ALLOC_INTERVAL=${ALLOC_INTERVAL:-512k}
LOCK_THRESHOLD=${LOCK_THRESHOLD:-10us}
TOP=${TOP:-15}
BASE_PORT=${BASE_PORT:-18780}
BENCH_JAR=${BENCH_JAR:-kv-bench/target/benchmarks.jar}
SERVER_JAR=${SERVER_JAR-kv-server/target/kv-server.jar}
if [[ $# -gt 0 && $1 != -* ]]; then OUT=$1; shift; fi
OUT=${OUT:-kv-bench/target/profiles/$SCENARIO-${NODES}n-$(date -u +%Y%m%dT%H%M%SZ)}
if [[ $NODES == 1 ]]; then
  NODE_FLAGS=${NODE_FLAGS:-}
  REPLICATION=()
elif [[ $NODES == 3 ]]; then
  NODE_FLAGS=${NODE_FLAGS:---event-loops 1 --storage-threads 1 --transport nio --background-priority 19}  # nodes share the cores: docs/TUNING.md
  REPLICATION=(--ack 2 --from 3)
else
  echo "NODES must be 1 or 3, got $NODES" >&2
  exit 2
fi
case $(uname -m) in
  x86_64) arch=x64 ;;
  aarch64) arch=arm64 ;;
  *) echo "async-profiler's jar carries no library for $(uname -m)" >&2; exit 2 ;;
esac
PROFILER_LIB=${PROFILER_LIB:-kv-bench/target/profiler/linux-$arch/libasyncProfiler.so}
for file in "$BENCH_JAR" "$PROFILER_LIB"; do
  [[ -f $file ]] || { echo "$file is missing: ./mvnw -B -ntp -pl kv-bench package -DskipTests builds it" >&2; exit 2; }
done
PROFILER_LIB=$(readlink -f "$PROFILER_LIB")  # the node resolves the path, from its own directory
# jcmd of the JDK whose java runs the nodes: another JDK's may not attach to them.
JCMD=$(dirname "$(readlink -f "$(command -v java)")")/jcmd
[[ -x $JCMD ]] || { echo "no jcmd next to $(command -v java): profile.sh needs a JDK, not a JRE" >&2; exit 2; }
paranoid=$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo 2)
# Up to 2 a process may open perf events on itself (user-space frames only, at 2, unless privileged), and
# async-profiler falls back to itimer when a container's seccomp filter refuses them; above 2 (Debian's
# and Android's setting) nobody unprivileged may, so ctimer, a per-thread CPU-time timer, samples instead.
CPU_EVENT=${CPU_EVENT:-$( ((paranoid > 2)) && echo ctimer || echo cpu)}
if [[ -n $SERVER_JAR && -f $SERVER_JAR ]]; then
  node_main=(-jar "$SERVER_JAR")
else
  node_main=(-cp "$BENCH_JAR" io.kvstore.server.Main)  # the same server, shaded into the benchmarks jar
fi
# Without this flag the JIT records where each inlined method is only at safepoints, and samples land on
# the method that inlined them.
NODE_JAVA_OPTS="$NODE_JAVA_OPTS -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints"
WORK=${WORK:-$(mktemp -d -t kvstore-profile.XXXXXX)}
mkdir -p "$WORK" "$OUT"
OUT=$(readlink -f "$OUT")

source kv-bench/scripts/processes.sh  # the working directory is the repository root

urls=()
for ((i = 0; i < NODES; i++)); do urls+=("http://127.0.0.1:$((BASE_PORT + i))"); done
targets=$(IFS=,; echo "${urls[*]}")
node_pids=()
for ((i = 0; i < NODES; i++)); do
  args=(--data-dir "$WORK/data-$((BASE_PORT + i))")
  [[ $NODES != 1 ]] && args+=(--cluster "$targets" --self "${urls[$i]}")
  # shellcheck disable=SC2086 # NODE_FLAGS is a list of flags
  start_kv_node $((BASE_PORT + i)) "${args[@]}" $NODE_FLAGS
  node_pids+=("$node_pid")
done
for ((i = 0; i < NODES; i++)); do wait_for_port $((BASE_PORT + i)); done

# The generator against the nodes, a command rather than a function: started in the background, its pid is
# the JVM's own, which stopping it then stops (a function would run in a subshell, the JVM its child).
# shellcheck disable=SC2206 # LOAD_JAVA_OPTS and LOAD_FLAGS are lists
load=(java $LOAD_JAVA_OPTS -cp "$BENCH_JAR" io.kvstore.bench.load.LoadGenerator --targets "$targets" --routing targets
  --keys "$KEYS" --value-size "$VALUE_SIZE" --connections "$CONNECTIONS" "${REPLICATION[@]}" $LOAD_FLAGS)

if [[ $SCENARIO == *get* || $SCENARIO == *range* ]]; then
  echo "preloading $KEYS keys" >&2
  "${load[@]}" --preload "$KEYS" >"$WORK/preload.log" 2>&1
  wait_idle "${node_pids[@]}"  # the preload's flushes and compactions are not the scenario's
fi

profiler() { # profiler PID COMMAND: runs an async-profiler command in node PID; fails if it is refused
  local answer
  answer=$("$JCMD" "$1" JVMTI.agent_load "$PROFILER_LIB" "'$2'" 2>&1) || { echo "jcmd $1: $answer" >&2; return 1; }
  grep -q 'return code: 0' <<<"$answer" || { echo "async-profiler in $1 refused '$2': $answer" >&2; return 1; }
}
on_every_node() { # on_every_node FUNCTION ARGS...: FUNCTION ARGS... INDEX for every node at once; fails if one did
  local i ctl=() failed=0
  for i in "${!node_pids[@]}"; do "$@" "$i" & ctl+=($!); done
  for i in "${ctl[@]}"; do wait "$i" || failed=1; done
  return $failed
}
start_event() { # start_event EVENT INDEX
  local options
  case $1 in
    cpu) options="event=$CPU_EVENT,interval=$CPU_INTERVAL" ;;
    alloc) options="event=alloc,alloc=$ALLOC_INTERVAL" ;;
    lock) options="event=lock,lock=$LOCK_THRESHOLD" ;;
    *) echo "unknown event $1: EVENTS is some of cpu alloc lock" >&2; return 1 ;;
  esac
  profiler "${node_pids[$2]}" "start,$options,threads"  # threads: each stack under its thread's name
}
write_event() { # write_event EVENT INDEX: stops the profiler, then writes its flame graph and its stacks
  local dir="$OUT/node-$((BASE_PORT + $2))" total=total
  [[ $1 == cpu ]] && total=""  # samples, each CPU_INTERVAL of a core's time
  mkdir -p "$dir"
  profiler "${node_pids[$2]}" "stop,flamegraph,${total:+$total,}title=$SCENARIO $1 node $((BASE_PORT + $2)),file=$dir/$1.html" &&
    profiler "${node_pids[$2]}" "collapsed,${total:+$total,}file=$dir/$1.collapsed"
}

read -ra events <<<"$EVENTS"
# Room for the profiler's start and stop (a jcmd each, a second or two on a busy machine) around each window.
load_s=$(( ${#events[@]} * (DURATION_S + 15) + 10 ))
range_args=()
[[ $SCENARIO == *range* ]] && range_args=(--range-keys "$RANGE_KEYS")
"${load[@]}" --ops "$SCENARIO" "${range_args[@]}" --rate "$RATE" --duration "$load_s" --warmup "$WARMUP_S" "$@" \
  >"$WORK/load.log" 2>"$OUT/load.log" &
load_pid=$!
pids+=("$load_pid")
until grep -q ' s  measure' "$OUT/load.log" 2>/dev/null; do
  kill -0 "$load_pid" 2>/dev/null || { echo "the load generator exited: $(cat "$OUT/load.log" "$WORK/load.log")" >&2; exit 1; }
  sleep 0.2
done

windows=()
for event in "${events[@]}"; do
  echo "$(date -u +%T) profiling $event for $DURATION_S s" >&2
  on_every_node start_event "$event"
  from=$(wc -l <"$OUT/load.log")
  sleep "$DURATION_S"
  to=$(wc -l <"$OUT/load.log")
  on_every_node write_event "$event"
  windows+=("$event:$from:$to")
  kill -0 "$load_pid" 2>/dev/null || { echo "the load generator ended before the $event window did" >&2; exit 1; }
done
kill "$load_pid" 2>/dev/null || true  # the windows are over; the rest of its run is spare time

{
  echo "Run $(date -u '+%Y-%m-%d %H:%M') UTC, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg);" \
    "NODES=$NODES SCENARIO=$SCENARIO RATE=$RATE DURATION_S=$DURATION_S WARMUP_S=$WARMUP_S KEYS=$KEYS" \
    "VALUE_SIZE=$VALUE_SIZE CONNECTIONS=$CONNECTIONS; generator options: ${LOAD_FLAGS:+$LOAD_FLAGS }$*;" \
    "nodes: ${node_main[*]} $NODE_FLAGS; async-profiler $(basename "$(dirname "$PROFILER_LIB")") cpu event" \
    "$CPU_EVENT at $CPU_INTERVAL (kernel.perf_event_paranoid=$paranoid), alloc every $ALLOC_INTERVAL," \
    "lock waits over $LOCK_THRESHOLD"
  python3 - "$OUT" "$TOP" "${windows[@]}" <<'PY'
import collections, os, re, statistics, sys

out, top, windows = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
progress = open(os.path.join(out, "load.log")).read().splitlines()
java_frame = re.compile(r"^[\w$]+(/[\w$]+)+\.")   # a Java method: package/Class.method
thread_frame = re.compile(r"^\[(.*?)( tid=\d+)?\]$")
def frame_name(f, event):  # one name for every lambda class of a site; alloc: for a class in and outside TLABs
    f = re.sub(r"\$\$Lambda(\$\d+)?([./]0x[0-9a-f]+)?", "$$Lambda", f)
    return re.sub(r"_\[[ik]\]$", "", f) if event == "alloc" else f  # elsewhere _[k] marks a kernel frame
def thread_name(f):  # vert.x-eventloop-thread-1 and -0 are one row
    m = thread_frame.match(f)
    return re.sub(r"\d+$", "N", m.group(1)) if m else None
units = {"cpu": "samples", "alloc": "bytes", "lock": "ns waited"}

def load_during(lo, hi):
    rows = [l.split() for l in progress[lo:hi] if " s  measure " in l]
    if not rows:
        return "no measured second of the load fell in this window"
    rps = [float(r[3]) for r in rows]
    p99 = [float(r[6]) for r in rows]
    return f"load in the window: {statistics.mean(rps):.0f} req/s, median p99 of its seconds {statistics.median(p99):.2f} ms"

def table(title, counts, total):
    print(f"  {title}:")
    for name, n in counts.most_common(top):
        print(f"    {100.0 * n / total:6.2f}%  {name}")

for node in sorted(d for d in os.listdir(out) if d.startswith("node-")):
    for window in windows:
        event, lo, hi = window.split(":")
        path = os.path.join(out, node, event + ".collapsed")
        self_share, java_self, ours, threads = (collections.Counter() for _ in range(4))
        total = kernel = 0
        for line in open(path):
            stack, _, n = line.rstrip("\n").rpartition(" ")
            if not stack:
                continue
            n = int(n)
            frames = stack.split(";")
            thread = thread_name(frames[0])
            if thread is not None:
                threads[thread] += n
                frames = frames[1:] or ["(no stack)"]
            frames = [frame_name(f, event) for f in frames]
            total += n
            kernel += n if any(f.endswith("_[k]") for f in frames) else 0
            self_share[frames[-1]] += n
            java = [f for f in frames if java_frame.match(f)]
            if java:
                java_self[java[-1]] += n
            for f in set(frames):
                if f.startswith("io/kvstore/") and "$$Lambda" not in f:
                    ours[f] += n
        print()
        print(f"== {node} {event}: {total} {units.get(event, 'samples')} in {os.path.join(node, event + '.html')};"
              f" {load_during(int(lo), int(hi))}")
        if event == "cpu" and total:  # none: sampled by a timer, or perf events without kernel symbols
            print(f"  {100.0 * kernel / total:.1f}% of the samples have kernel frames")
        if total == 0:
            print("  nothing recorded" + (" (no wait was over the threshold)" if event == "lock" else ""))
            continue
        table("threads (a number ending a name as N)", threads, total)
        table("self (the frame itself)", self_share, total)
        table("in Java method (the deepest Java frame of each stack)", java_self, total)
        table("io.kvstore frames, total (the frame and all it calls)", ours, total)
PY
} >"$OUT/summary.txt"
echo "flame graphs and summary in $OUT" >&2
cat "$OUT/summary.txt"
