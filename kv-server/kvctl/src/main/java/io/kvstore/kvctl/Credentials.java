package io.kvstore.kvctl;

import io.kvstore.client.internal.RequestSigning;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * What kvctl proves itself with: a bearer token (from {@code --token-file} or {@code $KVCTL_TOKEN}), the
 * cluster secret it signs requests with ({@code --secret-file} or the file {@code $KVCTL_SECRET_FILE}
 * names), or nothing. An option wins over the environment. A file that is missing,
 * unreadable or empty is a usage error naming it; neither the token nor the secret is ever printed.
 */
final class Credentials {
    /** A file this large is not a token or a secret file (the nodes refuse larger ones too). */
    private static final int MAX_FILE_BYTES = 4096;
    private static final Credentials NONE = new Credentials(null, null);

    private final String token;
    private final String secret;
    private final RequestSigning signing;

    private Credentials(String token, String secret) {
        this.token = token;
        this.secret = secret;
        this.signing = secret == null ? null : new RequestSigning(secret.getBytes(StandardCharsets.UTF_8));
    }

    static Credentials of(Path tokenFile, Path secretFile, String tokenVariable, String secretFileVariable) {
        if (tokenFile != null && secretFile != null) {
            throw KvctlException.usage("give --token-file or --secret-file, not both");
        }
        boolean tokenSet = tokenVariable != null && !tokenVariable.isBlank();
        boolean secretSet = secretFileVariable != null && !secretFileVariable.isBlank();
        if (tokenFile == null && secretFile == null && tokenSet && secretSet) {
            throw KvctlException.usage("both KVCTL_TOKEN and KVCTL_SECRET_FILE are set: unset one, or give --token-file"
                    + " or --secret-file");
        }
        if (secretFile != null) {
            return new Credentials(null, firstLine(secretFile, "--secret-file"));
        }
        if (tokenFile != null) {
            return new Credentials(firstLine(tokenFile, "--token-file"), null);
        }
        if (tokenSet) {
            return new Credentials(tokenVariable.strip(), null);
        }
        if (secretSet) {
            return new Credentials(null, firstLine(Path.of(secretFileVariable.strip()), "KVCTL_SECRET_FILE"));
        }
        return NONE;
    }

    /** The bearer token, or null. */
    String token() {
        return token;
    }

    /** The cluster secret requests are signed with, or null. */
    String secret() {
        return secret;
    }

    /**
     * The headers that authenticate a request without a body, as name/value pairs: the token's, the
     * signature's, or none.
     */
    String[] headers(String method, String target) {
        if (signing != null) {
            return signing.headers(method, target, System.currentTimeMillis(), RequestSigning.EMPTY_BODY_DIGEST);
        }
        return token == null ? new String[0] : new String[] {"Authorization", "Bearer " + token};
    }

    private static String firstLine(Path file, String option) {
        String where = option + " " + file;
        byte[] bytes;
        try {
            if (Files.size(file) > MAX_FILE_BYTES) {
                throw KvctlException.usage(where + " is larger than " + MAX_FILE_BYTES + " bytes: not a "
                        + (option.startsWith("--") ? option.substring(2) : "secret-file"));
            }
            bytes = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw KvctlException.usage(where + " does not exist");
        } catch (IOException e) {
            throw KvctlException.usage("cannot read " + where + ": " + KvctlException.describe(e));
        }
        for (String line : new String(bytes, StandardCharsets.UTF_8).split("\n")) {
            if (!line.isBlank()) {
                return line.strip();
            }
        }
        throw KvctlException.usage(where + " is empty");
    }
}
