#!/usr/bin/env bash
# Apache Cassandra 5.0 from Maven Central: N nodes (1 or 3), one JVM each on 127.0.0.1-N, with the JVM options
# of Cassandra's jvm17-server.options (kv-bench/kv-bench-cassandra/cassandra-node/jvm17-server.options), a
# CASSANDRA_HEAP heap and a cassandra.yaml written here; then YCSB's keyspace (replication factor min(3, N))
# and table, made by CassandraSchema once every node answers CQL. Run, it holds the nodes until stopped
# (Ctrl-C or SIGTERM), then stops them with SIGTERM and deletes their data; sourced (peers-suite.sh), it
# defines start_cassandra, whose nodes processes.sh's stop_all stops.
#
#   kv-bench/scripts/cassandra.sh 3        # prints "ready" when the keyspace is made
#   COMMITLOG=batch kv-bench/scripts/cassandra.sh 1
#
# Environment: COMMITLOG (periodic, Cassandra's default: the commit log forced every 10 s; batch: forced
# before a write is acknowledged), CASSANDRA_HEAP (1g), KEYSPACE (ycsb), CASSANDRA_CP and BINDING_CP (the
# class paths of a node and of kv-bench-cassandra; default: built by Maven, which fetches Cassandra and its
# driver), WORK (default a new temporary directory, deleted at the end unless KEEP=1 or a failure).

COMMITLOG=${COMMITLOG:-periodic}
CASSANDRA_HEAP=${CASSANDRA_HEAP:-1g}
KEYSPACE=${KEYSPACE:-ycsb}
CASSANDRA_OPTIONS_FILE=kv-bench/kv-bench-cassandra/cassandra-node/jvm17-server.options

# Sets CASSANDRA_CP and BINDING_CP, building them with Maven when not given.
cassandra_classpaths() {
  local node=kv-bench/kv-bench-cassandra/cassandra-node binding=kv-bench/kv-bench-cassandra
  if [[ -z ${CASSANDRA_CP:-} || -z ${BINDING_CP:-} ]]; then
    if [[ ! -f $node/target/classpath.txt || ! -f $binding/target/classpath.txt || ! -d $binding/target/classes ]]; then
      ./mvnw -B -ntp -q -pl "$node,$binding" -DskipTests package
    fi
    CASSANDRA_CP=${CASSANDRA_CP:-$(cat "$node/target/classpath.txt")}
    BINDING_CP=${BINDING_CP:-$binding/target/classes:$(cat "$binding/target/classpath.txt")}
  fi
}

cql_open() { (exec 3<>"/dev/tcp/$1/9042") 2>/dev/null; }  # cql_open ADDRESS: a node's CQL port answers

write_cassandra_config() { # write_cassandra_config DIR ADDRESS
  local dir=$1 address=$2 sync
  if [[ $COMMITLOG == batch ]]; then
    sync="commitlog_sync: batch"
  elif [[ $COMMITLOG == periodic ]]; then
    sync=$'commitlog_sync: periodic\ncommitlog_sync_period: 10000ms'
  else
    echo "COMMITLOG must be periodic or batch, got '$COMMITLOG'" >&2
    return 1
  fi
  mkdir -p "$dir"
  cat >"$dir/cassandra.yaml" <<YAML
cluster_name: kvstore-peers
num_tokens: 16
allocate_tokens_for_local_replication_factor: 3
partitioner: org.apache.cassandra.dht.Murmur3Partitioner
data_file_directories:
  - $dir/data
commitlog_directory: $dir/commitlog
saved_caches_directory: $dir/saved_caches
hints_directory: $dir/hints
seed_provider:
  - class_name: org.apache.cassandra.locator.SimpleSeedProvider
    parameters:
      - seeds: "127.0.0.1:7000"
listen_address: $address
rpc_address: $address
storage_port: 7000
native_transport_port: 9042
endpoint_snitch: SimpleSnitch
$sync
YAML
}

# Starts node I (1-based) on 127.0.0.I, its log in $WORK/cassandra-I.log, and adds it to pids.
start_cassandra_node() { # start_cassandra_node I
  local i=$1 address="127.0.0.$1" dir="$WORK/cassandra-$1"
  local -a options
  if cql_open "$address"; then
    echo "$address:9042 is already in use" >&2
    return 1
  fi
  write_cassandra_config "$dir" "$address"
  read -r -a options <<<"$(grep -v '^\s*#' "$CASSANDRA_OPTIONS_FILE" | tr '\n' ' ')"
  java -Xms"$CASSANDRA_HEAP" -Xmx"$CASSANDRA_HEAP" "${options[@]}" \
    -Dcassandra-foreground=yes -Dcassandra.config="file://$dir/cassandra.yaml" -Dcassandra.storagedir="$dir" \
    -Dcassandra.jmx.local.port=$((7190 + i)) -Dlogback.configurationFile="$WORK/cassandra-logback.xml" \
    -Dcassandra.ring_delay_ms=5000 -Dcassandra.skip_wait_for_gossip_to_settle=0 \
    -cp "$CASSANDRA_CP" org.apache.cassandra.service.CassandraDaemon >>"$WORK/cassandra-$i.log" 2>&1 &
  pids+=($!)
  cassandra_pids+=($!)
}

# Starts N nodes one after another (each joins once the last answers CQL: their tokens are allocated in
# turn), then makes the keyspace and table. Their pids in cassandra_pids.
start_cassandra() { # start_cassandra N
  local n=$1 i hosts=""
  cassandra_pids=()
  cassandra_classpaths
  cat >"$WORK/cassandra-logback.xml" <<'XML'
<configuration>
  <appender name="STDOUT" class="ch.qos.logback.core.ConsoleAppender">
    <encoder><pattern>%d{HH:mm:ss.SSS} %-5level [%thread] %logger{0} %msg%n</pattern></encoder>
  </appender>
  <root level="INFO"><appender-ref ref="STDOUT"/></root>
</configuration>
XML
  for ((i = 1; i <= n; i++)); do
    start_cassandra_node "$i"
    for _ in $(seq 1 240); do
      cql_open "127.0.0.$i" && break
      if ! kill -0 "${cassandra_pids[-1]}" 2>/dev/null; then
        echo "Cassandra node $i exited; see $WORK/cassandra-$i.log" >&2
        return 1
      fi
      sleep 0.5
    done
    if ! cql_open "127.0.0.$i"; then
      echo "Cassandra node $i did not answer CQL in 2 minutes; see $WORK/cassandra-$i.log" >&2
      return 1
    fi
    hosts+="${hosts:+,}127.0.0.$i"
  done
  java -cp "$BINDING_CP" io.kvstore.bench.cassandra.CassandraSchema "$hosts" $((n < 3 ? n : 3)) "$KEYSPACE" \
    >>"$WORK/cassandra-schema.log" 2>&1 || { echo "no keyspace; see $WORK/cassandra-schema.log" >&2; return 1; }
  cassandra_hosts=$hosts
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
  set -euo pipefail
  cd "$(dirname "$0")/../.."
  N=${1:-1}
  if [[ $N != 1 && $N != 3 ]]; then
    echo "usage: $0 1|3" >&2
    exit 2
  fi
  WORK=${WORK:-$(mktemp -d -t kvstore-cassandra.XXXXXX)}
  mkdir -p "$WORK"
  source kv-bench/scripts/processes.sh
  trap 'exit 0' TERM INT
  start_cassandra "$N"
  echo "ready: $N Cassandra node(s) on $cassandra_hosts, keyspace $KEYSPACE, commit log $COMMITLOG; logs in $WORK"
  wait
fi
