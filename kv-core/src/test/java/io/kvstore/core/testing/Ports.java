package io.kvstore.core.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;

/** Loopback ports for the tests of every module that start servers; other modules reach it through kv-core's test-jar. */
public final class Ports {
    private Ports() {
    }

    /** A port no socket listens on right now (the system's choice for port 0). */
    public static int free() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
