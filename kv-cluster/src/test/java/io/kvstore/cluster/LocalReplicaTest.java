package io.kvstore.cluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.core.Entry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.junit.jupiter.api.Test;

class LocalReplicaTest {
    private static final byte[] KEY = "k".getBytes(StandardCharsets.UTF_8);

    private final InMemoryDao dao = new InMemoryDao();
    private final LocalReplica direct = new LocalReplica(dao, Runnable::run);

    @Test
    void storesAndReadsVersionsThroughTheDao() throws Exception {
        direct.upsert(Entry.value(KEY, "v1".getBytes(StandardCharsets.UTF_8), 10)).toCompletableFuture().get();
        Entry read = direct.get(KEY).toCompletableFuture().get();
        assertArrayEquals("v1".getBytes(StandardCharsets.UTF_8), read.value());
        assertEquals(10, read.timestamp());
    }

    @Test
    void aMissingKeyIsNull() throws Exception {
        assertNull(direct.get(KEY).toCompletableFuture().get());
    }

    @Test
    void deleteStoresATombstoneThatAnOlderWriteCannotUndo() throws Exception {
        direct.delete(KEY, 20).toCompletableFuture().get();
        direct.upsert(Entry.value(KEY, new byte[0], 15)).toCompletableFuture().get();
        Entry read = direct.get(KEY).toCompletableFuture().get();
        assertTrue(read.isTombstone());
        assertEquals(20, read.timestamp());
    }

    @Test
    void daoErrorsCompleteTheStageExceptionally() {
        IOException diskError = new IOException("disk gone");
        dao.failure = diskError;
        ExecutionException e = assertThrows(ExecutionException.class, () -> direct.get(KEY).toCompletableFuture().get());
        assertSame(diskError, e.getCause());
        e = assertThrows(ExecutionException.class, () -> direct.delete(KEY, 1).toCompletableFuture().get());
        assertSame(diskError, e.getCause());
    }

    @Test
    void aRejectingExecutorCompletesTheStageExceptionallyInsteadOfThrowing() {
        LocalReplica saturated = new LocalReplica(dao, task -> {
            throw new RejectedExecutionException("queue full");
        });
        CompletableFuture<Entry> get = saturated.get(KEY).toCompletableFuture();
        ExecutionException e = assertThrows(ExecutionException.class, get::get);
        assertInstanceOf(RejectedExecutionException.class, e.getCause());
    }

    @Test
    void runsDaoCallsOnTheGivenExecutor() throws Exception {
        List<Runnable> queued = new ArrayList<>();
        Executor deferred = queued::add;
        LocalReplica replica = new LocalReplica(dao, deferred);
        CompletableFuture<Void> upsert = replica.upsert(Entry.value(KEY, new byte[] {1}, 1)).toCompletableFuture();
        assertFalse(upsert.isDone(), "nothing ran on the caller's thread");
        assertEquals(1, queued.size());
        queued.get(0).run();
        assertNull(upsert.get());
        assertEquals(1, dao.get(KEY).timestamp());
    }
}
