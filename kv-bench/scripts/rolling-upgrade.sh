#!/usr/bin/env bash
# A rolling upgrade under load, from the release before fencing by epoch and the epoch log
# (OLD_REV, by default the commit the membership work started from) to this tree's server.
#
# Builds the old server jar in a detached worktree of OLD_REV (`package`, never `install`), starts three
# nodes on it (ring, allocated tokens, RF 3 of 3, a cluster secret), preloads KEYS keys at quorum
# (ack=2&from=3) and starts WRITERS quorum writers (acked_writes.py: each acknowledged write logged, a
# quorum read after each write checks the writer's earlier ones), which run through everything below.
# With PRE_CHANGE=1 (the default) a fifth node then joins and is decommissioned under the old version,
# so that the upgrade starts from a map of epoch 5 and from what the old version's changes leave in
# the data directories.
# Then, node by node: SIGTERM, a clean exit, a restart on the new jar with the same data directory and
# flags, a wait until it serves and SETTLE_S seconds of load. While versions are mixed, it runs
# anti-entropy from an upgraded node and from an old one (they must fail cleanly, not crash or corrupt).
# Once every node runs the new version it checks that each node's map is the old one, that
# /v0/cluster shows the metadata group with committedEpoch at the old map's epoch, that anti-entropy
# works again, and that every acknowledged write reads back at quorum; then a fourth node (new jar)
# joins, node 3 is decommissioned and stopped, and every acknowledged write is read back again.
# Fails (status 1, naming the check) on a failed build, a node that exits or fails to serve, a write
# the cluster acknowledged and lost, a stale quorum read, more failed writes (or reads) in a phase than
# MAX_FAILED_WRITES, or an ERROR line in a node's log that the script does not expect. Prints the
# phases with the writes acknowledged and failed in each, the reads, and the keys checked.
#
#   kv-bench/scripts/rolling-upgrade.sh                         # about 4 minutes plus the two builds
#   OLD_JAR=../old/kv-server/target/kv-server.jar SETTLE_S=5 kv-bench/scripts/rolling-upgrade.sh   # a prebuilt old jar
#
# Environment: OLD_REV, OLD_JAR (skips the old build), SERVER_JAR (the new jar; BUILD=0 skips its build),
# MVN_FLAGS (extra Maven flags, such as -o), PRE_CHANGE, KEYS, WRITERS, KEYS_PER_WRITER, RATE (writes a second per
# writer), SETTLE_S, MAX_FAILED_WRITES, BASE_PORT, NODE_FLAGS, KEEP=1 (keep data and logs).
set -euo pipefail

cd "$(dirname "$0")/../.."
OLD_REV=${OLD_REV:-6780ce1^}
OLD_JAR=${OLD_JAR:-}
SERVER_JAR=${SERVER_JAR:-kv-server/target/kv-server.jar}
BUILD=${BUILD:-1}
MVN_FLAGS=${MVN_FLAGS:-}
KEYS=${KEYS:-3000}
WRITERS=${WRITERS:-4}
KEYS_PER_WRITER=${KEYS_PER_WRITER:-500}
RATE=${RATE:-20}
SETTLE_S=${SETTLE_S:-10}
MAX_FAILED_WRITES=${MAX_FAILED_WRITES:-50}
CHANGE_LIMIT_S=${CHANGE_LIMIT_S:-300}
PRE_CHANGE=${PRE_CHANGE:-1}
BASE_PORT=${BASE_PORT:-18580}
NODE_FLAGS=${NODE_FLAGS:---event-loops 1 --storage-threads 1 --transport nio --background-priority 19}  # nodes share the cores: docs/TUNING.md
# Hints replayed slowly (the default is 4 MiB/s; 100 makes it the floor of one hint every 100 ms), so
# that a node restarted soon after a peer came back still holds hints its old version stored for that
# peer when it stops (replay goes on through a SIGTERM's first seconds): its new version reads and
# delivers them.
HINT_REPLAY_BYTES_PER_S=${HINT_REPLAY_BYTES_PER_S:-100}
WORK=${WORK:-$(mktemp -d -t kvstore-rolling-upgrade.XXXXXX)}
mkdir -p "$WORK"
started=$(date +%s)

source kv-bench/scripts/processes.sh  # the working directory is the repository root
old_tree="$WORK/old-tree"
trap 'status=$?; stop_all
  if [[ -d $old_tree ]]; then git worktree remove --force "$old_tree" || true; fi
  if [[ $status != 0 ]]; then echo "failed; logs in $WORK" >&2
  elif [[ ${KEEP:-0} == 1 ]]; then echo "data and logs kept in $WORK" >&2
  else rm -rf "$WORK"; fi' EXIT

fail() { echo "FAILED: $*" >&2; exit 1; }
say() { echo "$(date -u +%T) $*" >&2; }

# --- the two jars ---
# shellcheck disable=SC2086 # MVN_FLAGS is a list of flags
build() { (cd "$1" && ./mvnw -B -ntp -q $MVN_FLAGS -pl kv-server -am package -DskipTests) >"$WORK/build-$2.log" 2>&1 \
  || fail "the $2 version's build failed; see $WORK/build-$2.log"; }
if [[ -z $OLD_JAR ]]; then
  say "building the old server jar at $OLD_REV ($(git rev-parse --short "$OLD_REV"))"
  git worktree add --detach "$old_tree" "$OLD_REV" >/dev/null 2>&1 || fail "git worktree add $OLD_REV failed"
  build "$old_tree" old
  cp "$old_tree/kv-server/target/kv-server.jar" "$WORK/old-kv-server.jar"
  git worktree remove --force "$old_tree"
  OLD_JAR="$WORK/old-kv-server.jar"
fi
if [[ $BUILD == 1 ]]; then
  say "building the new server jar from this tree"
  build . new
fi
NEW_JAR=$SERVER_JAR
[[ -f $OLD_JAR && -f $NEW_JAR ]] || fail "missing jar: $OLD_JAR or $NEW_JAR"

# --- the nodes ---
urls=() ports=()  # nodes 0-2 the cluster, 3 the node that joins after the upgrade, 4 the one of PRE_CHANGE
for i in 0 1 2 3 4; do ports+=($((BASE_PORT + i))); urls+=("http://127.0.0.1:$((BASE_PORT + i))"); done
for port in "${ports[@]}"; do require_free_port "$port"; done
seeds=$(IFS=,; echo "${urls[*]:0:3}")
(umask 077; openssl rand -hex 32 >"$WORK/cluster.secret"; openssl rand -hex 32 >"$WORK/admin.token")
node_pid=(0 0 0 0 0) node_jar=("" "" "" "" "")
start_node() { # start_node INDEX JAR FLAGS...: starts it and waits until it serves
  local i=$1 jar=$2
  # shellcheck disable=SC2086 # NODE_FLAGS is a list of flags
  java -jar "$jar" --port "${ports[$i]}" --data-dir "$WORK/data-$i" --self "${urls[$i]}" \
    --cluster-secret-file "$WORK/cluster.secret" --admin-token-file "$WORK/admin.token" \
    --hint-replay-bytes-per-s "$HINT_REPLAY_BYTES_PER_S" $NODE_FLAGS "${@:3}" >>"$WORK/node-$i.log" 2>&1 &
  node_pid[$i]=$!
  node_jar[$i]=$jar
  pids+=($!)
  wait_for_port "${ports[$i]}"
  for _ in $(seq 1 300); do
    [[ $(curl -s -o /dev/null -w '%{http_code}' "${urls[$i]}/v0/status") == 200 ]] && return 0
    kill -0 "${node_pid[$i]}" 2>/dev/null || fail "node $i exited at start; see $WORK/node-$i.log"
    sleep 0.1
  done
  fail "node $i does not serve /v0/status 30 s after its start"
}
stop_node() { # stop_node INDEX: SIGTERM, and a clean exit within 40 s
  local i=$1 pid=${node_pid[$1]} status=0
  kill -TERM "$pid"
  for _ in $(seq 1 400); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$pid" 2>/dev/null && fail "node $i still runs 40 s after SIGTERM"
  wait "$pid" || status=$?
  [[ $status == 0 || $status == 143 ]] || fail "node $i exited with status $status on SIGTERM; see $WORK/node-$i.log"
  node_pid[$i]=0
}
all_alive() { # all_alive: fails if a node that should run does not
  local i
  for i in 0 1 2 3 4; do
    if [[ ${node_pid[$i]} != 0 ]] && ! kill -0 "${node_pid[$i]}" 2>/dev/null; then
      fail "node $i (${node_jar[$i]}) died; see $WORK/node-$i.log"
    fi
  done
}
admin() { curl -s -H "Authorization: Bearer $(cat "$WORK/admin.token")" "$@"; }
cluster_json() { curl -s "$1/v0/cluster"; }
json() { python3 -c "import json, sys; d = json.load(sys.stdin); print($1)"; }

# --- load ---
phase() { # phase NAME: the writers count from now on under NAME
  all_alive
  echo "$1" >"$WORK/phase"
  phases+=("$1")
  say "phase $1"
}
phases=()
wait_change() { # wait_change DESCRIPTION PYTHON-CONDITION-ON-d (the map of node 0)
  for _ in $(seq 1 $((CHANGE_LIMIT_S * 2))); do
    all_alive
    [[ $(cluster_json "${urls[0]}" | json "$2" 2>/dev/null) == True ]] && return 0
    sleep 0.5
  done
  fail "$1 not done ${CHANGE_LIMIT_S} s after it began: $(cluster_json "${urls[0]}")"
}
for i in 0 1 2; do start_node "$i" "$OLD_JAR" --cluster "$seeds"; done
say "old cluster up: $(cluster_json "${urls[0]}" | json '"epoch %d, %d nodes, RF %d, %s" % (d["epoch"], len(d["nodes"]), d["replicationFactor"], d["partitioner"])')"
python3 kv-bench/scripts/acked_writes.py preload --targets "$seeds" --keys "$KEYS" --dir "$WORK" >"$WORK/preload.log" 2>&1 \
  || fail "preload: $(cat "$WORK/preload.log")"
say "$(cat "$WORK/preload.log")"
phase old
python3 kv-bench/scripts/acked_writes.py write --targets "$seeds" --writers "$WRITERS" \
  --keys-per-writer "$KEYS_PER_WRITER" --rate "$RATE" --dir "$WORK" >"$WORK/writers.log" 2>&1 &
writers_pid=$!
pids+=("$writers_pid")
sleep "$SETTLE_S"
if [[ $PRE_CHANGE == 1 ]]; then
  # A node joins and is decommissioned under the old version, so that the map the upgrade starts from
  # is not the seed map and the data directories hold what the old version's changes leave there.
  phase old-join
  start_node 4 "$OLD_JAR" --join "${urls[0]}"
  wait_change "the old version's join of node 4" \
    "any(n[\"url\"] == \"${urls[4]}\" and n[\"state\"] == \"normal\" for n in d[\"nodes\"])"
  phase old-decommission
  code=$(admin -o "$WORK/old-decommission.json" -w '%{http_code}' -X POST "${urls[4]}/v0/admin/decommission")
  [[ $code == 200 ]] || fail "the old version's decommission of node 4 answered $code: $(cat "$WORK/old-decommission.json")"
  wait_change "the old version's decommission of node 4" "all(n[\"url\"] != \"${urls[4]}\" for n in d[\"nodes\"])"
  stop_node 4
  sleep "$SETTLE_S"
fi
old_map=$(cluster_json "${urls[0]}")
old_epoch=$(json 'd["epoch"]' <<<"$old_map")
for i in 1 2; do
  [[ $(cluster_json "${urls[$i]}" | json 'd["epoch"]') == "$old_epoch" ]] || fail "node $i is not on the map of epoch $old_epoch before the upgrade"
done
say "the upgrade starts from the map of epoch $old_epoch"

repair_from() { # repair_from INDEX -> "STATUS outcome" of POST /v0/admin/repair there, logged in repair-*.json
  local code
  code=$(admin -o "$WORK/repair-$1-$2.json" -w '%{http_code}' -X POST "${urls[$1]}/v0/admin/repair")
  echo "$code"
}

# --- node by node ---
# Node 0 first, then a settle with one node upgraded, then nodes 1 and 2 back to back. Node 1 still
# holds hints its old version stored for node 0 while node 0 restarted (replayed at
# HINT_REPLAY_BYTES_PER_S), and node 2 those it stored for node 1: their new versions deliver them.
hints_pending() { # hints_pending INDEX -> hints that node keeps for its peers, from its /v0/status
  curl -s "${urls[$1]}/v0/status" | json 'sum(p["hintsPending"] for p in d["peers"])'
}
hints_carried=() recounted=(0 0 0 0)
hints_replayed() { # hints_replayed INDEX -> kv_hints_total{event="replayed"} of that node
  curl -s "${urls[$1]}/metrics" | awk '/^kv_hints_total\{.*event="replayed"/ { n += $2 } END { printf "%d", n }'
}
wait_no_hints() { # wait_no_hints INDEX...: until those nodes keep no hint, within 180 s
  local i
  for i in "$@"; do
    for _ in $(seq 1 360); do [[ $(hints_pending "$i") == 0 ]] && break; all_alive; sleep 0.5; done
    [[ $(hints_pending "$i") == 0 ]] || fail "node $i still keeps hints 180 s on: $(curl -s "${urls[$i]}/v0/status")"
  done
}
for i in 0 1 2; do
  phase "restart-node-$i"
  held=$(hints_pending "$i")
  stop_node "$i"
  start_node "$i" "$NEW_JAR" --cluster "$seeds"
  recounted[$i]=$(hints_pending "$i")
  hints_carried+=("node $i $held at its stop, ${recounted[$i]} at its new start")
  say "node $i serves on the new version (hints kept: $held at its stop, ${recounted[$i]} at its start)"
  if [[ $i == 0 ]]; then
    phase after-node-0
    for j in 0 1 2; do curl -s "${urls[$j]}/metrics" >"$WORK/metrics-$j-mixed-start.txt"; done
    sleep "$SETTLE_S"
    # Every replica call between the versions succeeds both ways: the new node serves the old ones'
    # requests (no epoch) and they serve its own (epoch and map fingerprint headers they ignore).
    for j in 0 1 2; do curl -s "${urls[$j]}/metrics" >"$WORK/metrics-$j-mixed-end.txt"; done
    python3 - "$WORK" "${urls[@]:0:3}" <<'PY' || fail "replica calls between the versions failed (above)"
import collections, re, sys
work, urls = sys.argv[1], sys.argv[2:]
def calls(path):  # (peer, outcome) -> calls, from kv_replica_request_seconds_count
    counts = collections.Counter()
    for line in open(path):
        if line.startswith("kv_replica_request_seconds_count{"):
            labels = dict(re.findall(r'(\w+)="([^"]*)"', line))
            counts[labels["peer"], labels["outcome"]] += float(line.split()[-1])
    return counts
bad = False
for i, url in enumerate(urls):
    delta = calls("%s/metrics-%d-mixed-end.txt" % (work, i))
    delta.subtract(calls("%s/metrics-%d-mixed-start.txt" % (work, i)))
    for peer in urls:
        if peer == url:
            continue
        ok, failed = int(delta[peer, "ok"]), int(delta[peer, "failed"])
        print("  replica calls while mixed, node %d (%s) to %s: %d ok, %d failed"
              % (i, "new" if i == 0 else "old", peer, ok, failed), file=sys.stderr)
        bad |= failed > 0 or ok == 0
sys.exit(1 if bad else 0)
PY
    new_to_old=$(repair_from 0 mixed)
    old_to_new=$(repair_from 1 mixed)
    say "anti-entropy in mixed versions: from the new node $new_to_old, from an old node $old_to_new"
    [[ $new_to_old == 503 && $old_to_new == 503 ]] \
      || fail "anti-entropy between an old and a new node answered $new_to_old and $old_to_new, expected 503 (failed exchanges)"
    # Exactly the exchanges between versions fail: node 0 with both old nodes, node 1 with node 0 only.
    python3 - "$WORK/repair-0-mixed.json" "$WORK/repair-1-mixed.json" "${urls[@]}" <<'PY' || fail "anti-entropy while mixed failed other exchanges than those between versions"
import json, sys
new, old, urls = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3:]
assert sorted(new["failedPeers"]) == [urls[1], urls[2]], new
assert sorted(old["failedPeers"]) == [urls[0]] and [p["peer"] for p in old["peers"]] == [urls[2]], old
for reason in list(new["failedPeers"].values()) + list(old["failedPeers"].values()):
    print("  mixed anti-entropy failure: " + reason, file=sys.stderr)
PY
    failed_exchanges=$(curl -s "${urls[0]}/metrics" | awk '/^kv_repair_exchanges_total\{.*outcome="failed"/ { n += $2 } END { printf "%d", n }')
    [[ $failed_exchanges == 2 ]] || fail "node 0 counts $failed_exchanges failed anti-entropy exchanges, expected 2"
    sleep "$SETTLE_S"
  fi
done

# --- every node on the new version ---
phase new
echo "$old_map" >"$WORK/old-map.json"
for i in 0 1 2; do
  # The old map is the epoch log's first entry: the same map, committedEpoch at its epoch, its first
  # three normal nodes the metadata group.
  cluster_json "${urls[$i]}" >"$WORK/map-$i-upgraded.json"
  python3 - "$WORK/old-map.json" "$WORK/map-$i-upgraded.json" "$seeds" <<'PY' || fail "node $i after the upgrade: $(cat "$WORK/map-$i-upgraded.json")"
import json, sys
old, new, seeds = json.load(open(sys.argv[1])), json.load(open(sys.argv[2])), sys.argv[3].split(",")
meta = new.get("metadata", {})
problems = [p for p in (
    new["epoch"] != old["epoch"] and "epoch %s, the old map's %s" % (new["epoch"], old["epoch"]),
    new["nodes"] != old["nodes"] and "another map than the old one",
    meta.get("committedEpoch") != old["epoch"] and "committedEpoch %s" % meta.get("committedEpoch"),
    meta.get("group") != seeds and "metadata group %s" % meta.get("group"),
    meta.get("protocol") != "paxos-per-epoch" and "protocol %s" % meta.get("protocol"),
    meta.get("changeInProgress") is not False and "a change in progress") if p]
if problems:
    print("; ".join(problems), file=sys.stderr)
    sys.exit(1)
PY
done
say "every node: epoch $old_epoch, committedEpoch $old_epoch, metadata group $seeds"
for i in 0 1 2; do
  code=$(repair_from "$i" new)
  [[ $code == 200 ]] || fail "anti-entropy from node $i after the upgrade answered $code: $(cat "$WORK/repair-$i-new.json")"
done
say "anti-entropy from every node: 200"
# The hints each node's old version left in its store are delivered by its new version.
wait_no_hints 0 1 2
for i in 0 1 2; do
  replayed[$i]=$(hints_replayed "$i")
  (( replayed[i] >= recounted[i] )) \
    || fail "node $i found ${recounted[$i]} hints of its old version at its start and replayed only ${replayed[$i]}"
done
(( recounted[1] + recounted[2] > 0 )) || fail "no node kept a hint of its old version across its restart: nothing checked their delivery"
say "hints of the old versions delivered: replayed ${replayed[*]} by nodes 0-2 (found at their start: ${recounted[*]:0:3})"
python3 kv-bench/scripts/acked_writes.py check --targets "$seeds" --dir "$WORK" >"$WORK/check-upgraded.log" 2>&1 \
  || fail "after the upgrade: $(cat "$WORK/check-upgraded.log")"
say "after the upgrade: $(head -1 "$WORK/check-upgraded.log")"
sleep "$SETTLE_S"

# --- one change of each kind through the new protocol ---
phase join
start_node 3 "$NEW_JAR" --join "${urls[0]}"
wait_change "the join of node 3" \
  "any(n[\"url\"] == \"${urls[3]}\" and n[\"state\"] == \"normal\" for n in d[\"nodes\"]) and not d[\"metadata\"][\"changeInProgress\"]"
say "node 3 joined: epoch $(cluster_json "${urls[0]}" | json 'd["epoch"]')"
(IFS=,; echo "${urls[*]:0:4}") >"$WORK/targets"
sleep "$SETTLE_S"

phase decommission
code=$(admin -o "$WORK/decommission.json" -w '%{http_code}' -X POST "${urls[2]}/v0/admin/decommission")
[[ $code == 200 ]] || fail "the decommission of node 2 answered $code: $(cat "$WORK/decommission.json")"
wait_change "the decommission of node 2" \
  "all(n[\"url\"] != \"${urls[2]}\" for n in d[\"nodes\"]) and not d[\"metadata\"][\"changeInProgress\"]"
writer_targets="${urls[0]},${urls[1]},${urls[3]}"
echo "$writer_targets" >"$WORK/targets"
stop_node 2
say "node 2 decommissioned and stopped: epoch $(cluster_json "${urls[0]}" | json 'd["epoch"]')"
phase after-changes
sleep "$SETTLE_S"
all_alive
touch "$WORK/stop"
wait "$writers_pid" || fail "the writers failed: $(tail -5 "$WORK/writers.log")"
final=$(cluster_json "${urls[0]}")
for i in 0 1 3; do
  c=$(cluster_json "${urls[$i]}")
  [[ $(json 'd["epoch"]' <<<"$c") == $(json 'd["epoch"]' <<<"$final") ]] || fail "node $i is on another map than node 0: $c"
  [[ $(json 'd["metadata"]["committedEpoch"]' <<<"$c") == $(json 'd["epoch"]' <<<"$final") ]] \
    || fail "node $i's committedEpoch is not its epoch after the changes: $c"
done
wait_no_hints 0 1 3
python3 kv-bench/scripts/acked_writes.py check --targets "$writer_targets" --dir "$WORK" >"$WORK/check-final.log" 2>&1 \
  || fail "after the join and the decommission: $(cat "$WORK/check-final.log")"
say "after the join and the decommission: $(head -1 "$WORK/check-final.log")"

# --- the logs ---
grep -h 'STALE' "$WORK/writers.log" && fail "the writers read stale values (above)"
errors=0
for i in 0 1 2 3 4; do
  if [[ -f $WORK/node-$i.log ]] && grep -q ' ERROR ' "$WORK/node-$i.log"; then
    echo "ERROR lines of node $i:" >&2
    grep ' ERROR ' "$WORK/node-$i.log" | sed -E 's/^[^ ]+ [^ ]+ //' | sort | uniq -c | sort -rn | head -20 >&2
    errors=1
  fi
done

# --- summary ---
echo
echo "Rolling upgrade $(git rev-parse --short "$OLD_REV") -> $(git rev-parse --short HEAD)$(git diff --quiet HEAD || echo ' (with local changes)'):" \
  "3 nodes, RF 3, ring with allocated tokens, ack=2&from=3; PRE_CHANGE=$PRE_CHANGE; $WRITERS writers at $RATE writes/s each;" \
  "$(($(date +%s) - started)) s; $(date -u '+%Y-%m-%d %H:%M') UTC, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
python3 - "$WORK/counts.json" "$MAX_FAILED_WRITES" "${phases[@]}" <<'PY'
import json, sys
counts, limit, phases = json.load(open(sys.argv[1])), int(sys.argv[2]), sys.argv[3:]
print("| phase | writes acked | writes failed | reads ok | reads failed | stale | sent on to the next node (connection refused) | failures |")
print("|---|---|---|---|---|---|---|---|")
over = []
for p in phases:
    c = counts.get(p, {})
    detail = ", ".join("%s %d" % (k, v) for k, v in sorted(c.items()) if k.startswith(("write_", "read_")))
    print("| %s | %d | %d | %d | %d | %d | %d | %s |" % (p, c.get("writes_acked", 0), c.get("writes_failed", 0),
          c.get("reads_ok", 0), c.get("reads_failed", 0), c.get("reads_stale", 0), c.get("skipped_down_node", 0), detail))
    if c.get("writes_failed", 0) > limit or c.get("reads_failed", 0) > limit or c.get("reads_stale", 0):
        over.append(p)
    if not c.get("writes_acked"):
        over.append(p + " (no write acknowledged)")
if over:
    print("FAILED: too many failed writes or reads, stale reads or no write acknowledged in: " + ", ".join(over))
    sys.exit(1)
PY
echo
echo "anti-entropy while mixed: from the upgraded node $new_to_old, from an old node $old_to_new; after: 200 from every node"
echo "keys checked: $(head -1 "$WORK/check-upgraded.log") (after the upgrade); $(head -1 "$WORK/check-final.log") (after the join and the decommission)"
echo "hints kept by the old versions: $(printf '%s; ' "${hints_carried[@]}")replayed by the new ones before the join: ${replayed[*]}"
echo "epochs: old map $old_epoch, committedEpoch $old_epoch on every node after the upgrade, $(json 'd["epoch"]' <<<"$final") after the join and the decommission"
[[ $errors == 0 ]] || fail "ERROR lines in the nodes' logs (above)"
