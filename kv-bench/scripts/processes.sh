# Sourced by the suite scripts: the processes a script starts, stopped on exit, a node's start, a wait for a
# port, the CPU time of processes and a wait until they are idle.
# Expects WORK (the work directory). On failure, or with KEEP=1, the work directory stays, with every
# process's log.

pids=()
stop_all() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  pids=()
}
trap 'status=$?; stop_all
  if [[ $status != 0 ]]; then echo "failed; logs in $WORK" >&2
  elif [[ ${KEEP:-0} == 1 ]]; then echo "data and logs kept in $WORK" >&2
  else rm -rf "$WORK"; fi' EXIT

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }  # port_open PORT: something listens there

# Fails if something already listens on PORT: a process left from an earlier run would answer for the
# one about to start, which then exits unable to bind while the run measures the stranger.
require_free_port() { # require_free_port PORT
  if port_open "$1"; then
    echo "port $1 is already in use" >&2
    return 1
  fi
}

wait_for_port() {
  for _ in $(seq 1 200); do
    port_open "$1" && return 0
    sleep 0.1
  done
  echo "port $1 did not open; see logs in $WORK" >&2
  return 1
}

# Starts a node on PORT, its log in $WORK/node-PORT.log, and adds it to pids; its pid in node_pid. Refuses a
# port in use; returns without waiting for the port (wait_for_port does). The JVM runs NODE_JAVA_OPTS and
# node_main, an array the script may set (default: -jar $SERVER_JAR, else kv-server/target/kv-server.jar).
start_kv_node() { # start_kv_node PORT NODE_ARGS...
  local port=$1 main
  shift
  require_free_port "$port"
  if [[ -n ${node_main+set} ]]; then main=("${node_main[@]}"); else main=(-jar "${SERVER_JAR:-kv-server/target/kv-server.jar}"); fi
  # shellcheck disable=SC2086 # NODE_JAVA_OPTS is a list of options
  java ${NODE_JAVA_OPTS:-} "${main[@]}" --port "$port" "$@" >>"$WORK/node-$port.log" 2>&1 &
  node_pid=$!
  pids+=("$node_pid")
}

cpu_ticks() { # cpu_ticks PID... -> user + system clock ticks of them all so far
  local total=0 pid
  for pid in "$@"; do total=$((total + $(awk '{ print $14 + $15 }' "/proc/$pid/stat"))); done
  echo "$total"
}

# Waits (at most 3 minutes) until the processes use under 5% of a core over 2 s: the flushes and
# compactions a preload set off are done, so the first measurement reads a settled store rather than
# sharing the cores with them.
wait_idle() { # wait_idle PID...
  local before hz
  hz=$(getconf CLK_TCK)
  for _ in $(seq 1 90); do
    before=$(cpu_ticks "$@")
    sleep 2
    (( ($(cpu_ticks "$@") - before) * 100 < 2 * hz * 5 )) && return 0
  done
  echo "warning: the nodes were still busy 3 minutes after the preload" >&2
}
