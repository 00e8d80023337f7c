package io.kvstore.cluster.membership;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;

/**
 * The cluster map's JSON form, the one {@code GET /v0/cluster} answers and the data directory keeps:
 *
 * <pre>{@code
 * {"epoch":3,"replicationFactor":3,"partitioner":"ring","virtualNodes":256,
 *  "nodes":[{"url":"http://10.0.0.1:8080","state":"normal"}, ...]}
 * }</pre>
 *
 * During a change whose streams are done the map also has {@code "readsMoved":true} (absent otherwise).
 * With allocated ring tokens each node also has {@code "tokens":["-9223372036854775808", ...]}: signed
 * 64-bit integers written as decimal strings, since many JSON readers hold numbers as doubles, which
 * would round them. Unknown fields are skipped, so that a newer node's map still reads.
 */
public final class ClusterMapCodec {
    private static final JsonFactory JSON = new JsonFactory();

    private ClusterMapCodec() {
    }

    public static String toJson(ClusterMap map) {
        StringWriter out = new StringWriter();
        try (JsonGenerator json = JSON.createGenerator(out)) {
            write(json, map);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }

    /** Writes the map as one JSON object. */
    public static void write(JsonGenerator json, ClusterMap map) throws IOException {
        json.writeStartObject();
        json.writeNumberField("epoch", map.epoch());
        json.writeNumberField("replicationFactor", map.replicationFactor());
        json.writeStringField("partitioner", map.partitioner());
        json.writeNumberField("virtualNodes", map.virtualNodes());
        if (map.readsMoved()) {
            json.writeBooleanField("readsMoved", true);
        }
        json.writeArrayFieldStart("nodes");
        for (Member member : map.members()) {
            json.writeStartObject();
            json.writeStringField("url", member.url());
            json.writeStringField("state", member.state().id());
            if (!member.tokens().isEmpty()) {
                json.writeArrayFieldStart("tokens");
                for (long token : member.tokens()) {
                    json.writeString(Long.toString(token));
                }
                json.writeEndArray();
            }
            json.writeEndObject();
        }
        json.writeEndArray();
        json.writeEndObject();
    }

    /** @throws IllegalArgumentException if the text is not a valid map, saying what is wrong */
    public static ClusterMap fromJson(String text) {
        try (JsonParser json = JSON.createParser(text)) {
            if (json.nextToken() != JsonToken.START_OBJECT) {
                throw new IllegalArgumentException("a cluster map is a JSON object");
            }
            return read(json);
        } catch (IOException e) {
            throw new IllegalArgumentException("malformed cluster map: " + e.getMessage(), e);
        }
    }

    /** Reads a map whose START_OBJECT the parser is on; leaves it on the matching END_OBJECT. */
    public static ClusterMap read(JsonParser json) throws IOException {
        long epoch = -1;
        int replicationFactor = -1;
        String partitioner = null;
        int virtualNodes = -1;
        List<Member> members = null;
        boolean readsMoved = false;
        while (json.nextToken() == JsonToken.FIELD_NAME) {
            String field = json.currentName();
            JsonToken value = json.nextToken();
            switch (field) {
                case "epoch":
                    epoch = number(json, value, field);
                    break;
                case "replicationFactor":
                    replicationFactor = (int) number(json, value, field);
                    break;
                case "partitioner":
                    partitioner = text(json, value, field);
                    break;
                case "virtualNodes":
                    virtualNodes = (int) number(json, value, field);
                    break;
                case "nodes":
                    members = members(json, value);
                    break;
                case "readsMoved":
                    if (value != JsonToken.VALUE_TRUE && value != JsonToken.VALUE_FALSE) {
                        throw new IllegalArgumentException("readsMoved must be true or false");
                    }
                    readsMoved = value == JsonToken.VALUE_TRUE;
                    break;
                default:
                    json.skipChildren();
            }
        }
        if (epoch < 0 || replicationFactor < 0 || partitioner == null || virtualNodes < 0 || members == null) {
            throw new IllegalArgumentException("a cluster map needs epoch, replicationFactor, partitioner, virtualNodes and nodes");
        }
        return new ClusterMap(epoch, replicationFactor, partitioner, virtualNodes, members, readsMoved);
    }

    private static List<Member> members(JsonParser json, JsonToken token) throws IOException {
        if (token != JsonToken.START_ARRAY) {
            throw new IllegalArgumentException("nodes must be an array");
        }
        List<Member> members = new ArrayList<>();
        while (json.nextToken() == JsonToken.START_OBJECT) {
            String url = null;
            NodeState state = null;
            List<Long> tokens = List.of();
            while (json.nextToken() == JsonToken.FIELD_NAME) {
                String field = json.currentName();
                JsonToken value = json.nextToken();
                if (field.equals("url")) {
                    url = text(json, value, field);
                } else if (field.equals("state")) {
                    state = NodeState.parse(text(json, value, field));
                } else if (field.equals("tokens")) {
                    tokens = tokens(json, value);
                } else {
                    json.skipChildren();
                }
            }
            if (url == null || state == null) {
                throw new IllegalArgumentException("each node needs a url and a state");
            }
            members.add(new Member(url, state, tokens));
        }
        return members;
    }

    /** A node's tokens: decimal strings (or integers) of signed 64-bit values. */
    private static List<Long> tokens(JsonParser json, JsonToken token) throws IOException {
        if (token != JsonToken.START_ARRAY) {
            throw new IllegalArgumentException("tokens must be an array");
        }
        List<Long> tokens = new ArrayList<>();
        for (JsonToken value = json.nextToken(); value != JsonToken.END_ARRAY; value = json.nextToken()) {
            if (value == JsonToken.VALUE_STRING) {
                try {
                    tokens.add(Long.parseLong(json.getText()));
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("token '" + json.getText() + "' is not a signed 64-bit integer");
                }
            } else if (value == JsonToken.VALUE_NUMBER_INT && json.getNumberType() != JsonParser.NumberType.BIG_INTEGER) {
                tokens.add(json.getLongValue());
            } else {
                throw new IllegalArgumentException("a token must be a signed 64-bit integer, got " + json.getText());
            }
        }
        return tokens;
    }

    private static long number(JsonParser json, JsonToken token, String field) throws IOException {
        if (token != JsonToken.VALUE_NUMBER_INT) {
            throw new IllegalArgumentException(field + " must be an integer");
        }
        return json.getLongValue();
    }

    private static String text(JsonParser json, JsonToken token, String field) throws IOException {
        if (token != JsonToken.VALUE_STRING) {
            throw new IllegalArgumentException(field + " must be a string");
        }
        return json.getText();
    }
}
