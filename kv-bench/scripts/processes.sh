# Sourced by the suite scripts: the processes a script starts, stopped on exit, and a wait for a port.
# Expects WORK (the work directory). On failure the work directory stays, with every process's log.

pids=()
stop_all() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  pids=()
}
trap 'status=$?; stop_all; if [[ $status == 0 ]]; then rm -rf "$WORK"; else echo "failed; logs in $WORK" >&2; fi' EXIT

wait_for_port() {
  for _ in $(seq 1 200); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.1
  done
  echo "port $1 did not open; see logs in $WORK" >&2
  return 1
}
