package io.kvstore.bench.cassandra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.datastax.oss.driver.api.core.DefaultConsistencyLevel;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Properties;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import site.ycsb.DBException;

/** The statements the binding prepares and the consistency levels it accepts, without a server. */
class CqlTest {

    @Test
    void readsAllFieldsOrTheNamedOnesInOneOrder() {
        assertEquals("SELECT * FROM \"usertable\" WHERE y_id = ?", Cql.select("usertable", null, false));
        assertEquals("SELECT y_id, \"field1\", \"field3\" FROM \"usertable\" WHERE y_id = ?",
                Cql.select("usertable", new LinkedHashSet<>(List.of("field3", "field1")), false));
        assertEquals("SELECT * FROM \"usertable\" WHERE token(y_id) >= token(?) LIMIT ?",
                Cql.select("usertable", null, true));
    }

    @Test
    void writesTheKeyThenTheFieldsInTheSetsOrder() {
        assertEquals("INSERT INTO \"usertable\" (y_id, \"field0\", \"field2\") VALUES (?, ?, ?)",
                Cql.insert("usertable", new TreeSet<>(List.of("field2", "field0"))));
        assertEquals("DELETE FROM \"usertable\" WHERE y_id = ?", Cql.delete("usertable"));
    }

    @Test
    void makesTheTableAndKeyspaceYcsbExpects() {
        assertEquals("CREATE TABLE IF NOT EXISTS \"usertable\" (y_id text PRIMARY KEY, field0 blob, field1 blob)",
                Cql.createTable("usertable", 2));
        assertEquals("CREATE KEYSPACE IF NOT EXISTS \"ycsb\" WITH replication = {'class': 'SimpleStrategy', "
                + "'replication_factor': 3}", Cql.createKeyspace("ycsb", 3));
        assertEquals("\"a\"\"b\"", Cql.quote("a\"b"));
    }

    @Test
    void consistencyLevelsByName() throws DBException {
        Properties p = new Properties();
        assertEquals(DefaultConsistencyLevel.ONE, CassandraYcsbDb.level(p, "cassandra.readconsistency"));
        p.setProperty("cassandra.readconsistency", "quorum");
        assertEquals(DefaultConsistencyLevel.QUORUM, CassandraYcsbDb.level(p, "cassandra.readconsistency"));
        p.setProperty("cassandra.readconsistency", "most");
        assertThrows(DBException.class, () -> CassandraYcsbDb.level(p, "cassandra.readconsistency"));
    }
}
