package io.kvstore.server.wire;

import io.kvstore.cluster.internal.metadata.Ballot;
import io.kvstore.cluster.internal.metadata.EpochReply;
import io.kvstore.cluster.internal.metadata.EpochRequest;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;

/**
 * The bodies of the epoch log's route ({@link Routes#MEMBERSHIP_EPOCH}), as JSON: a request
 * {@code {"phase": "prepare"|"accept", "epoch", "round", "node", "value"}} (the value, a cluster map's
 * JSON as a string, in an accept only) and an answer {@code {"answer": "promise"|"accepted"|"refused"|
 * "decided", ...}} with the ballot and value it carries.
 */
public final class EpochVotes {
    private EpochVotes() {
    }

    public static String toJson(EpochRequest request) {
        JsonObject json = new JsonObject().put("epoch", request.epoch()).put("round", request.ballot().round())
                .put("node", request.ballot().node());
        if (request instanceof EpochRequest.Accept accept) {
            json.put("phase", "accept").put("value", text(accept.value()));
        } else {
            json.put("phase", "prepare");
        }
        return json.encode();
    }

    /** @throws IllegalArgumentException naming what is missing or malformed */
    public static EpochRequest requestFromJson(String text) {
        JsonObject json = parse(text);
        long epoch = number(json, "epoch");
        if (epoch < 2) {
            throw new IllegalArgumentException("epoch must be >= 2 (epoch 1 is the seed map), got " + epoch);
        }
        Ballot ballot = ballot(json);
        String phase = json.getValue("phase") instanceof String s ? s : null;
        if ("prepare".equals(phase)) {
            return new EpochRequest.Prepare(epoch, ballot);
        }
        if ("accept".equals(phase)) {
            return new EpochRequest.Accept(epoch, ballot, value(json));
        }
        throw new IllegalArgumentException("phase must be prepare or accept, got " + json.getValue("phase"));
    }

    public static String toJson(EpochReply reply) {
        JsonObject json = new JsonObject();
        if (reply instanceof EpochReply.Promise promise) {
            json.put("answer", "promise");
            if (promise.accepted() != null) {
                json.put("round", promise.accepted().round()).put("node", promise.accepted().node())
                        .put("value", text(promise.value()));
            }
        } else if (reply instanceof EpochReply.Accepted) {
            json.put("answer", "accepted");
        } else if (reply instanceof EpochReply.Refused refused) {
            json.put("answer", "refused").put("round", refused.promised().round()).put("node", refused.promised().node());
        } else if (reply instanceof EpochReply.Decided decided) {
            json.put("answer", "decided").put("epoch", decided.epoch()).put("value", text(decided.value()));
        }
        return json.encode();
    }

    /** @throws IllegalArgumentException naming what is missing or malformed */
    public static EpochReply replyFromJson(String text) {
        JsonObject json = parse(text);
        Object answer = json.getValue("answer");
        if ("promise".equals(answer)) {
            return json.containsKey("round") ? new EpochReply.Promise(ballot(json), value(json)) : new EpochReply.Promise(null, null);
        }
        if ("accepted".equals(answer)) {
            return new EpochReply.Accepted();
        }
        if ("refused".equals(answer)) {
            return new EpochReply.Refused(ballot(json));
        }
        if ("decided".equals(answer)) {
            return new EpochReply.Decided(number(json, "epoch"), value(json));
        }
        throw new IllegalArgumentException("answer must be promise, accepted, refused or decided, got " + answer);
    }

    private static JsonObject parse(String text) {
        try {
            return new JsonObject(text);
        } catch (DecodeException | ClassCastException e) {
            throw new IllegalArgumentException("not a JSON object: " + e.getMessage(), e);
        }
    }

    private static Ballot ballot(JsonObject json) {
        long round = number(json, "round");
        if (round < 1) {
            throw new IllegalArgumentException("round must be >= 1, got " + round);
        }
        if (!(json.getValue("node") instanceof String node) || node.isEmpty()) {
            throw new IllegalArgumentException("a ballot needs its node's URL");
        }
        return new Ballot(round, node);
    }

    private static long number(JsonObject json, String field) {
        Object value = json.getValue(field);
        if (!(value instanceof Number number) || value instanceof Double || value instanceof Float) {
            throw new IllegalArgumentException(field + " must be an integer, got " + value);
        }
        return number.longValue();
    }

    private static byte[] value(JsonObject json) {
        if (!(json.getValue("value") instanceof String value)) {
            throw new IllegalArgumentException("missing value (a cluster map as a JSON string)");
        }
        return value.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] value) {
        return new String(value, StandardCharsets.UTF_8);
    }
}
