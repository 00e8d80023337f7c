package io.kvstore.client;

import io.vertx.core.buffer.Buffer;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * Decodes the HTTP/1.1 answer to {@code GET /v0/entities} from raw socket bytes: status line and
 * headers, then one chunk per entry ({@code key \n value}). HTTP client libraries hand out a chunked
 * body as a byte stream whose pieces need not match the chunks, and an entry can only be split at its
 * chunk's boundaries (a value may contain {@code \n}), so the chunks are read here. A key is read up to
 * its entry's first {@code \n}: a key holding that byte cannot be told apart in this format.
 */
final class ChunkedEntryDecoder {
    /** What the decoder found. Called on the thread that feeds it. */
    interface Listener {
        void entry(byte[] key, byte[] value);

        void end();

        void failed(KvClientException error);
    }

    private static final int MAX_HEAD_BYTES = 64 << 10;
    private static final int MAX_ERROR_BODY_BYTES = 4 << 10;

    private enum State { HEAD, ERROR_BODY, SIZE, DATA, DATA_END, TRAILER, DONE }

    private final Listener listener;
    private final String node;
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();
    private State state = State.HEAD;
    private int status;
    private String retryAfter;
    private long errorBodyLength = -1;
    private byte[] chunk;
    private int chunkFill;
    private int dataEndLeft;
    private boolean lastWasCr;
    private boolean chunked;
    private long entries;

    ChunkedEntryDecoder(Listener listener, String node) {
        this.listener = listener;
        this.node = node;
    }

    void feed(Buffer bytes) {
        int length = bytes.length();
        int i = 0;
        while (i < length && state != State.DONE) {
            switch (state) {
                case DATA: {
                    int n = Math.min(length - i, chunk.length - chunkFill);
                    bytes.getBytes(i, i + n, chunk, chunkFill);
                    chunkFill += n;
                    i += n;
                    if (chunkFill == chunk.length) {
                        deliver();
                        state = State.DATA_END;
                        dataEndLeft = 2;
                    }
                    break;
                }
                case DATA_END:
                    i++; // the CRLF after a chunk's data
                    if (--dataEndLeft == 0) {
                        state = State.SIZE;
                    }
                    break;
                case ERROR_BODY:
                    if (line.size() < MAX_ERROR_BODY_BYTES) {
                        line.write(bytes.getByte(i));
                    }
                    i++;
                    if (errorBodyLength >= 0 && --errorBodyLength == 0) {
                        finishError();
                    }
                    break;
                default:
                    byte b = bytes.getByte(i++);
                    line.write(b);
                    boolean crLf = b == '\n' && lastWasCr;
                    lastWasCr = b == '\r';
                    if (crLf) {
                        onLine();
                    } else if (line.size() > MAX_HEAD_BYTES) {
                        fail("an answer line longer than " + MAX_HEAD_BYTES + " bytes");
                    }
            }
        }
    }

    /** The connection closed: the end of an error body, else a truncated range. */
    void closed() {
        if (state == State.ERROR_BODY) {
            finishError();
        } else if (state != State.DONE) {
            fail("the connection closed before the range ended, after " + entries + " entries");
        }
    }

    private void onLine() {
        String text = line.toString(StandardCharsets.ISO_8859_1);
        text = text.substring(0, text.length() - 2);
        line.reset();
        switch (state) {
            case HEAD:
                head(text);
                break;
            case SIZE:
                size(text);
                break;
            case TRAILER:
                if (text.isEmpty()) {
                    state = State.DONE;
                    listener.end();
                }
                break;
            default:
                throw new IllegalStateException(state.toString());
        }
    }

    private void head(String text) {
        if (status == 0) {
            String[] parts = text.split(" ", 3);
            try {
                status = Integer.parseInt(parts[1]);
            } catch (RuntimeException e) {
                fail("not an HTTP status line: '" + text + "'");
            }
            return;
        }
        if (!text.isEmpty()) {
            int colon = text.indexOf(':');
            if (colon > 0) {
                String name = text.substring(0, colon).trim().toLowerCase(Locale.ROOT);
                String value = text.substring(colon + 1).trim();
                if (name.equals("transfer-encoding")) {
                    chunked = value.toLowerCase(Locale.ROOT).endsWith("chunked");
                } else if (name.equals("retry-after")) {
                    retryAfter = value;
                } else if (name.equals("content-length")) {
                    errorBodyLength = Long.parseLong(value);
                }
            }
            return;
        }
        if (status != 200) {
            state = State.ERROR_BODY;
            if (errorBodyLength == 0) {
                finishError();
            }
            // Without a length (chunked, which nodes do not use for errors) the reason ends with the connection.
        } else if (!chunked) {
            fail("a 200 answer to a range without chunked transfer encoding");
        } else {
            state = State.SIZE;
        }
    }

    private void size(String text) {
        int semicolon = text.indexOf(';');
        String hex = (semicolon >= 0 ? text.substring(0, semicolon) : text).trim();
        long size;
        try {
            size = Long.parseLong(hex, 16);
        } catch (NumberFormatException e) {
            fail("bad chunk size '" + text + "'");
            return;
        }
        if (size == 0) {
            state = State.TRAILER;
        } else if (size > Integer.MAX_VALUE - 8) {
            fail("a chunk of " + size + " bytes");
        } else {
            chunk = new byte[(int) size];
            chunkFill = 0;
            state = State.DATA;
        }
    }

    private void deliver() {
        int newline = -1;
        for (int i = 0; i < chunk.length; i++) {
            if (chunk[i] == '\n') {
                newline = i;
                break;
            }
        }
        if (newline < 0) {
            fail("a range entry of " + chunk.length + " bytes without the newline after its key");
            return;
        }
        byte[] key = new byte[newline];
        byte[] value = new byte[chunk.length - newline - 1];
        System.arraycopy(chunk, 0, key, 0, key.length);
        System.arraycopy(chunk, newline + 1, value, 0, value.length);
        chunk = null;
        entries++;
        listener.entry(key, value);
    }

    private void finishError() {
        state = State.DONE;
        listener.failed(ResponseOutcome.failure(status, retryAfter, line.toString(StandardCharsets.UTF_8).trim(), node,
                "range"));
    }

    private void fail(String why) {
        if (state != State.DONE) {
            state = State.DONE;
            listener.failed(new KvClientException("range from " + node + ": " + why, status, node, null));
        }
    }
}
