package io.kvstore.server.membership;

import java.io.IOException;

/** A map change could not be committed: no majority of the metadata group answered. */
final class NoMajorityException extends IOException {
    NoMajorityException(String reason) {
        super(reason);
    }
}
