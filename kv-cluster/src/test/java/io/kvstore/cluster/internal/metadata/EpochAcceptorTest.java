package io.kvstore.cluster.internal.metadata;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.core.AtomicFile;
import io.kvstore.core.Storage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EpochAcceptorTest {
    private static final byte[] A = "a".getBytes(StandardCharsets.UTF_8);
    private static final byte[] B = "b".getBytes(StandardCharsets.UTF_8);

    @TempDir
    Path directory;

    private final AtomicReference<EpochAcceptor.Committed> committed =
            new AtomicReference<>(new EpochAcceptor.Committed(4, "map 4".getBytes(StandardCharsets.UTF_8)));

    private EpochAcceptor open() throws IOException {
        return EpochAcceptor.open(EpochAcceptor.Persistence.of(new AtomicFile(Storage.local(), directory.resolve("acceptor"))),
                committed::get);
    }

    @Test
    void aPromiseAndAnAcceptedValueSurviveAReopenAndRefuseLowerBallots() throws IOException {
        EpochAcceptor acceptor = open();
        EpochReply.Promise first = assertInstanceOf(EpochReply.Promise.class,
                acceptor.handle(new EpochRequest.Prepare(5, new Ballot(2, "n1"))));
        assertNull(first.accepted());
        assertInstanceOf(EpochReply.Accepted.class, acceptor.handle(new EpochRequest.Accept(5, new Ballot(2, "n1"), A)));

        EpochAcceptor reopened = open();
        EpochReply.Refused refused = assertInstanceOf(EpochReply.Refused.class,
                reopened.handle(new EpochRequest.Prepare(5, new Ballot(2, "n0"))));
        assertEquals(new Ballot(2, "n1"), refused.promised());
        assertInstanceOf(EpochReply.Refused.class, reopened.handle(new EpochRequest.Accept(5, new Ballot(1, "n9"), B)));
        EpochReply.Promise later = assertInstanceOf(EpochReply.Promise.class,
                reopened.handle(new EpochRequest.Prepare(5, new Ballot(3, "n0"))));
        assertEquals(new Ballot(2, "n1"), later.accepted());
        assertArrayEquals(A, later.value());
        assertEquals(new EpochAcceptor.Pending(5, new Ballot(2, "n1"), A).epoch(), reopened.acceptedAfter(4).orElseThrow().epoch());
    }

    @Test
    void anEpochItsNodeCommittedIsAnsweredAsDecidedAndForgotten() throws IOException {
        EpochAcceptor acceptor = open();
        acceptor.handle(new EpochRequest.Accept(5, new Ballot(1, "n1"), A));
        acceptor.handle(new EpochRequest.Prepare(6, new Ballot(1, "n1")));
        committed.set(new EpochAcceptor.Committed(5, A));
        EpochReply.Decided decided = assertInstanceOf(EpochReply.Decided.class,
                acceptor.handle(new EpochRequest.Prepare(5, new Ballot(9, "n2"))));
        assertEquals(5, decided.epoch());
        assertArrayEquals(A, decided.value());
        acceptor.handle(new EpochRequest.Prepare(6, new Ballot(2, "n2")));
        assertEquals(1, acceptor.epochsHeld(), "epoch 5 is decided: only epoch 6 is held");
        assertTrue(acceptor.acceptedAfter(5).isEmpty());
    }

    @Test
    void aDamagedStateIsAnErrorThatSaysSoNeverAnEmptyAcceptor() throws IOException {
        open().handle(new EpochRequest.Accept(5, new Ballot(1, "n1"), A));
        Path file = directory.resolve("acceptor");
        byte[] bytes = Files.readAllBytes(file);
        Files.write(file, java.util.Arrays.copyOf(bytes, bytes.length - 1));
        IOException error = assertThrows(IOException.class, this::open);
        assertTrue(String.valueOf(error.getMessage()).contains("acceptor state"), String.valueOf(error.getMessage()));
        Files.write(file, new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
        assertTrue(assertThrows(IOException.class, this::open).getMessage().contains("not an acceptor state"));
    }
}
