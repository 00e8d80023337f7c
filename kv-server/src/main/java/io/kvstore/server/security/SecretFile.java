package io.kvstore.server.security;

import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Reads a secret file: one secret per line, at most two (the first presented, both accepted during a
 * rotation), each at least {@value #MIN_SECRET_BYTES} bytes. A file that is missing, empty, too large,
 * holds a short secret or can be read by every user of the machine is refused with a message naming the
 * file and the option, never the secret; the node does not start.
 */
public final class SecretFile {
    /** Shorter secrets could be guessed; 16 random bytes hex-encoded make 32 characters. */
    static final int MIN_SECRET_BYTES = 16;
    static final int MAX_SECRETS = 2;
    /** A secret file is a few lines; anything larger is the wrong file. */
    public static final int MAX_FILE_BYTES = 4096;

    private SecretFile() {
    }

    /**
     * The secrets in {@code file}, given by {@code option}.
     *
     * @throws IllegalArgumentException naming the file and why it is refused
     */
    public static Secrets read(Path file, String option) {
        String where = option + " " + file;
        byte[] bytes;
        try {
            checkNotWorldReadable(file, where);
            if (Files.size(file) > MAX_FILE_BYTES) {
                throw new IllegalArgumentException(where + " is larger than " + MAX_FILE_BYTES + " bytes: not a secret file");
            }
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException(where + " does not exist");
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read " + where + ": " + e);
        }
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException(where + " is not UTF-8 text");
        }
        List<byte[]> secrets = new ArrayList<>();
        int line = 0;
        for (String each : text.split("\n")) {
            line++;
            String secret = each.strip();
            if (secret.isEmpty()) {
                continue;
            }
            byte[] value = secret.getBytes(StandardCharsets.UTF_8);
            if (value.length < MIN_SECRET_BYTES) {
                throw new IllegalArgumentException(where + ": the secret on line " + line + " is shorter than "
                        + MIN_SECRET_BYTES + " bytes");
            }
            secrets.add(value);
        }
        if (secrets.isEmpty()) {
            throw new IllegalArgumentException(where + " is empty: it must hold a secret");
        }
        if (secrets.size() > MAX_SECRETS) {
            throw new IllegalArgumentException(where + " holds " + secrets.size() + " secrets; at most " + MAX_SECRETS
                    + " (the one in use, then the one being rotated in or out)");
        }
        return new Secrets(where, secrets);
    }

    private static void checkNotWorldReadable(Path file, String where) throws IOException {
        PosixFileAttributeView posix = Files.getFileAttributeView(file, PosixFileAttributeView.class);
        if (posix == null) {
            return;
        }
        Set<PosixFilePermission> permissions = posix.readAttributes().permissions();
        if (permissions.contains(PosixFilePermission.OTHERS_READ)) {
            throw new IllegalArgumentException(where + " can be read by every user of this machine; restrict it"
                    + " (chmod 600 " + file + ")");
        }
    }
}
