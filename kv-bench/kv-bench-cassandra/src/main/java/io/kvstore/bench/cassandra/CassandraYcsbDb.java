package io.kvstore.bench.cassandra;

import com.datastax.oss.driver.api.core.ConsistencyLevel;
import com.datastax.oss.driver.api.core.CqlIdentifier;
import com.datastax.oss.driver.api.core.CqlSession;
import com.datastax.oss.driver.api.core.DefaultConsistencyLevel;
import com.datastax.oss.driver.api.core.DriverException;
import com.datastax.oss.driver.api.core.config.DefaultDriverOption;
import com.datastax.oss.driver.api.core.config.DriverConfigLoader;
import com.datastax.oss.driver.api.core.cql.BoundStatementBuilder;
import com.datastax.oss.driver.api.core.cql.ColumnDefinition;
import com.datastax.oss.driver.api.core.cql.PreparedStatement;
import com.datastax.oss.driver.api.core.cql.ResultSet;
import com.datastax.oss.driver.api.core.cql.Row;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.Vector;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import site.ycsb.ByteArrayByteIterator;
import site.ycsb.ByteIterator;
import site.ycsb.DB;
import site.ycsb.DBException;
import site.ycsb.Status;

/**
 * YCSB binding for Apache Cassandra through its Java driver, one {@link CqlSession} shared by the client
 * threads. A record is a row of the table YCSB names, keyed by {@code y_id} (text), each field a
 * {@code blob} column, as {@link CassandraSchema} makes it; an update writes only the fields it carries.
 *
 * <p>Properties: {@code cassandra.hosts} (comma-separated, default {@code 127.0.0.1}),
 * {@code cassandra.port} (9042), {@code cassandra.keyspace} ({@code ycsb}), {@code cassandra.datacenter}
 * ({@code datacenter1}, SimpleSnitch's), {@code cassandra.readconsistency} and
 * {@code cassandra.writeconsistency} ({@code ONE}), {@code cassandra.timeout.ms} (10000). The driver's
 * default policy sends each request to a replica of its key, as {@code HttpYcsbDb}'s default routing does.
 */
public final class CassandraYcsbDb extends DB {
    /** The partition key column. */
    static final String KEY = "y_id";

    private static final int MAX_FAILURES_PRINTED = 10;
    private static final AtomicInteger FAILURES_PRINTED = new AtomicInteger();
    private static final Object LOCK = new Object();
    private static CqlSession session;
    private static int users;
    private static final Map<String, PreparedStatement> STATEMENTS = new ConcurrentHashMap<>();

    private CqlSession cql;
    private ConsistencyLevel readLevel;
    private ConsistencyLevel writeLevel;

    @Override
    public void init() throws DBException {
        Properties p = getProperties();
        readLevel = level(p, "cassandra.readconsistency");
        writeLevel = level(p, "cassandra.writeconsistency");
        synchronized (LOCK) {
            if (session == null) {
                session = open(p);
            }
            users++;
            cql = session;
        }
    }

    private static CqlSession open(Properties p) throws DBException {
        try {
            int port = Integer.parseInt(p.getProperty("cassandra.port", "9042"));
            List<InetSocketAddress> points = new ArrayList<>();
            for (String host : p.getProperty("cassandra.hosts", "127.0.0.1").split(",")) {
                points.add(new InetSocketAddress(host.trim(), port));
            }
            Duration timeout = Duration.ofMillis(Long.parseLong(p.getProperty("cassandra.timeout.ms", "10000")));
            DriverConfigLoader config = DriverConfigLoader.programmaticBuilder()
                    .withDuration(DefaultDriverOption.REQUEST_TIMEOUT, timeout)
                    .build();
            return CqlSession.builder()
                    .addContactPoints(points)
                    .withLocalDatacenter(p.getProperty("cassandra.datacenter", "datacenter1"))
                    .withKeyspace(CqlIdentifier.fromCql(p.getProperty("cassandra.keyspace", "ycsb")))
                    .withConfigLoader(config)
                    .build();
        } catch (DriverException | IllegalArgumentException e) {
            throw new DBException("cannot connect to Cassandra: " + e.getMessage(), e);
        }
    }

    static ConsistencyLevel level(Properties p, String name) throws DBException {
        String value = p.getProperty(name, "ONE");
        try {
            return DefaultConsistencyLevel.valueOf(value.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new DBException(name + " must be a consistency level such as ONE or QUORUM, got '" + value + "'");
        }
    }

    @Override
    public void cleanup() {
        synchronized (LOCK) {
            if (--users == 0) {
                session.close();
                session = null;
                STATEMENTS.clear();
            }
        }
    }

    @Override
    public Status read(String table, String key, Set<String> fields, Map<String, ByteIterator> result) {
        try {
            BoundStatementBuilder read = prepared(Cql.select(table, fields, false)).boundStatementBuilder()
                    .setString(0, key).setConsistencyLevel(readLevel);
            Row row = cql.execute(read.build()).one();
            if (row == null) {
                return Status.NOT_FOUND;
            }
            copy(row, result);
            return Status.OK;
        } catch (DriverException e) {
            return failed(e);
        }
    }

    /** Rows in the ring's order from the token of {@code startKey} on, as YCSB's own binding scans. */
    @Override
    public Status scan(String table, String startKey, int count, Set<String> fields,
            Vector<HashMap<String, ByteIterator>> result) {
        try {
            BoundStatementBuilder scan = prepared(Cql.select(table, fields, true)).boundStatementBuilder()
                    .setString(0, startKey).setInt(1, count).setConsistencyLevel(readLevel);
            ResultSet rows = cql.execute(scan.build());
            for (Row row : rows) {
                HashMap<String, ByteIterator> values = new HashMap<>();
                copy(row, values);
                result.add(values);
            }
            return Status.OK;
        } catch (DriverException e) {
            return failed(e);
        }
    }

    @Override
    public Status update(String table, String key, Map<String, ByteIterator> values) {
        return write(table, key, values);
    }

    @Override
    public Status insert(String table, String key, Map<String, ByteIterator> values) {
        return write(table, key, values);
    }

    private Status write(String table, String key, Map<String, ByteIterator> values) {
        try {
            Set<String> names = new TreeSet<>(values.keySet());
            BoundStatementBuilder write = prepared(Cql.insert(table, names)).boundStatementBuilder()
                    .setString(0, key).setConsistencyLevel(writeLevel);
            int i = 1;
            for (String name : names) {
                write.setByteBuffer(i++, ByteBuffer.wrap(values.get(name).toArray()));
            }
            cql.execute(write.build());
            return Status.OK;
        } catch (DriverException e) {
            return failed(e);
        }
    }

    @Override
    public Status delete(String table, String key) {
        try {
            cql.execute(prepared(Cql.delete(table)).boundStatementBuilder()
                    .setString(0, key).setConsistencyLevel(writeLevel).build());
            return Status.OK;
        } catch (DriverException e) {
            return failed(e);
        }
    }

    private PreparedStatement prepared(String query) {
        return STATEMENTS.computeIfAbsent(query, cql::prepare);
    }

    private static void copy(Row row, Map<String, ByteIterator> result) {
        int i = 0;
        for (ColumnDefinition column : row.getColumnDefinitions()) {
            String name = column.getName().asInternal();
            int index = i++;
            if (name.equals(KEY)) {
                continue;
            }
            ByteBuffer value = row.getByteBuffer(index);
            if (value != null) {
                byte[] bytes = new byte[value.remaining()];
                value.duplicate().get(bytes);
                result.put(name, new ByteArrayByteIterator(bytes));
            }
        }
    }

    /** {@link Status#ERROR}, the first few failures' reasons printed so that a run's errors can be told apart. */
    private static Status failed(DriverException e) {
        if (FAILURES_PRINTED.getAndIncrement() < MAX_FAILURES_PRINTED) {
            System.err.println("Cassandra request failed: " + e);
        }
        return Status.ERROR;
    }
}
