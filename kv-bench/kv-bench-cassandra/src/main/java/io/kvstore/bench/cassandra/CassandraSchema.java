package io.kvstore.bench.cassandra;

import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.DriverException;
import com.datastax.oss.driver.api.core.metadata.Node;
import com.datastax.oss.driver.api.core.metadata.NodeState;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;

/**
 * Waits until every given Cassandra node answers CQL and sees the others up, then makes YCSB's keyspace
 * and table, which {@link CassandraYcsbDb} reads and writes:
 * {@code java -cp ... io.kvstore.bench.cassandra.CassandraSchema HOSTS REPLICATION_FACTOR [KEYSPACE [TABLE
 * [FIELDS]]]}, HOSTS comma-separated (port 9042), defaults {@code ycsb}, {@code usertable}, 10 fields.
 * Exits 1 if the nodes are not all up within {@code cassandra.wait.seconds} (system property, default 180).
 */
public final class CassandraSchema {
    private CassandraSchema() {
    }

    /**
     * Runs the command.
     *
     * @param args hosts, replication factor, then optionally keyspace, table and field count
     * @throws InterruptedException if interrupted while waiting for the nodes
     */
    public static void main(String[] args) throws InterruptedException {
        if (args.length < 2) {
            System.err.println("usage: CassandraSchema HOSTS REPLICATION_FACTOR [KEYSPACE [TABLE [FIELDS]]]");
            System.exit(2);
        }
        List<InetSocketAddress> hosts = new ArrayList<>();
        for (String host : args[0].split(",")) {
            hosts.add(new InetSocketAddress(host.trim(), 9042));
        }
        int replicas = Integer.parseInt(args[1]);
        String keyspace = args.length > 2 ? args[2] : "ycsb";
        String table = args.length > 3 ? args[3] : "usertable";
        int fields = args.length > 4 ? Integer.parseInt(args[4]) : 10;
        long deadline = System.nanoTime() + Long.getLong("cassandra.wait.seconds", 180) * 1_000_000_000L;
        DriverException last = null;
        while (System.nanoTime() < deadline) {
            try (CqlSession session = CqlSession.builder().addContactPoints(hosts)
                    .withLocalDatacenter("datacenter1").build()) {
                while (!allUp(session, hosts.size())) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("not every node is up: " + session.getMetadata().getNodes());
                    }
                    Thread.sleep(500);
                }
                session.execute(Cql.createKeyspace(keyspace, replicas));
                session.execute("USE " + Cql.quote(keyspace));
                session.execute(Cql.createTable(table, fields));
                if (!session.checkSchemaAgreement()) {
                    throw new IllegalStateException("the nodes do not agree on the schema");
                }
                System.out.println("keyspace " + keyspace + " (replication factor " + replicas + ") and table "
                        + table + " ready on " + args[0]);
                return;
            } catch (DriverException e) {
                // Not answering yet: connect again.
                last = e;
            }
            Thread.sleep(1000);
        }
        System.err.println("the nodes " + args[0] + " were not all up in time" + (last == null ? "" : ": " + last));
        System.exit(1);
    }

    private static boolean allUp(CqlSession session, int expected) {
        long up = session.getMetadata().getNodes().values().stream().map(Node::getState)
                .filter(NodeState.UP::equals).count();
        return up >= expected;
    }
}
