package io.kvstore.bench.cassandra;

import java.util.Set;

/** The CQL text of each statement the binding prepares, from YCSB's table and field names. */
final class Cql {
    private Cql() {
    }

    /**
     * A read of one row by key ({@code scan} false: one marker, the key), or of up to a count of rows from a
     * key's token on ({@code scan} true: the key, then the count); every column when {@code fields} is null.
     */
    static String select(String table, Set<String> fields, boolean scan) {
        String columns = fields == null ? "*" : CassandraYcsbDb.KEY + ", " + String.join(", ", fields.stream()
                .map(Cql::quote).sorted().toList());
        String from = "SELECT " + columns + " FROM " + quote(table);
        return scan
                ? from + " WHERE token(" + CassandraYcsbDb.KEY + ") >= token(?) LIMIT ?"
                : from + " WHERE " + CassandraYcsbDb.KEY + " = ?";
    }

    /** An upsert of the key (first marker) and the given fields (the next markers, in the set's order). */
    static String insert(String table, Set<String> fields) {
        StringBuilder columns = new StringBuilder(CassandraYcsbDb.KEY);
        StringBuilder markers = new StringBuilder("?");
        for (String field : fields) {
            columns.append(", ").append(quote(field));
            markers.append(", ?");
        }
        return "INSERT INTO " + quote(table) + " (" + columns + ") VALUES (" + markers + ")";
    }

    /** A deletion of the row of the key (the one marker). */
    static String delete(String table) {
        return "DELETE FROM " + quote(table) + " WHERE " + CassandraYcsbDb.KEY + " = ?";
    }

    /** The table made for YCSB's records: the key and {@code fieldcount} blob columns field0, field1, .... */
    static String createTable(String table, int fieldCount) {
        StringBuilder ddl = new StringBuilder("CREATE TABLE IF NOT EXISTS " + quote(table) + " ("
                + CassandraYcsbDb.KEY + " text PRIMARY KEY");
        for (int i = 0; i < fieldCount; i++) {
            ddl.append(", field").append(i).append(" blob");
        }
        return ddl.append(")").toString();
    }

    /** The keyspace, placed by SimpleStrategy (one data centre) on {@code replicas} nodes. */
    static String createKeyspace(String keyspace, int replicas) {
        return "CREATE KEYSPACE IF NOT EXISTS " + quote(keyspace)
                + " WITH replication = {'class': 'SimpleStrategy', 'replication_factor': " + replicas + "}";
    }

    /** A name exactly as written (YCSB's are lower case, but quoting keeps any other case). */
    static String quote(String name) {
        return '"' + name.replace("\"", "\"\"") + '"';
    }
}
