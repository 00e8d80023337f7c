package io.kvstore.kvctl;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;

/** A node's answer to one of kvctl's requests: the status and the body, as text. */
record Answer(String node, String method, String target, int status, String body) {

    /**
     * This answer if its status is one of {@code expected}; else the node's refusal, with its reason, as
     * a {@link KvctlException} with {@link Kvctl#REFUSED}.
     */
    Answer expect(int... expected) {
        for (int status : expected) {
            if (this.status == status) {
                return this;
            }
        }
        throw KvctlException.refused(method + " " + target + " on " + node + ": " + status + reason());
    }

    /** The body as a JSON object; a body that is not one is a failure of the node. */
    JsonObject json() {
        try {
            return new JsonObject(body);
        } catch (DecodeException | ClassCastException e) {
            throw KvctlException.refused(method + " " + target + " on " + node + " answered " + status
                    + " with a body that is not a JSON object: " + KvctlException.describe(e));
        }
    }

    /** The node's one-line reason, after a space, or nothing. */
    private String reason() {
        String text = body == null ? "" : body.strip();
        return text.isEmpty() ? "" : " " + text;
    }
}
