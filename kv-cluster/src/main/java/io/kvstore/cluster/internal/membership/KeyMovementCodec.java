package io.kvstore.cluster.internal.membership;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.kvstore.cluster.membership.ClusterMap;
import io.kvstore.cluster.membership.ClusterMapCodec;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.HashSet;
import java.util.Set;

/**
 * A {@link KeyMovement}'s JSON form, as the node driving a change asks a node to stream:
 * {@code {"id":4,"fromSurvivors":false,"before":{map},"after":{map}}}, and for a plan without failed
 * sources ({@link KeyMovement#withoutSources}) {@code "withoutSources":["url",...]} after them, in URL
 * order. A plan a change starts with has no such field, so its form is the one nodes without failover
 * write and read.
 */
public final class KeyMovementCodec {
    private static final JsonFactory JSON = new JsonFactory();

    private KeyMovementCodec() {
    }

    public static String toJson(KeyMovement movement) {
        StringWriter out = new StringWriter();
        try (JsonGenerator json = JSON.createGenerator(out)) {
            json.writeStartObject();
            json.writeNumberField("id", movement.id());
            json.writeBooleanField("fromSurvivors", movement.fromSurvivors());
            json.writeFieldName("before");
            ClusterMapCodec.write(json, movement.before());
            json.writeFieldName("after");
            ClusterMapCodec.write(json, movement.after());
            if (!movement.failedSources().isEmpty()) {
                json.writeArrayFieldStart("withoutSources");
                for (String source : movement.failedSources()) {
                    json.writeString(source);
                }
                json.writeEndArray();
            }
            json.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toString();
    }

    /** @throws IllegalArgumentException if the text is not a valid movement, saying what is wrong */
    public static KeyMovement fromJson(String text) {
        try (JsonParser json = JSON.createParser(text)) {
            if (json.nextToken() != JsonToken.START_OBJECT) {
                throw new IllegalArgumentException("a key movement is a JSON object");
            }
            long id = -1;
            Boolean survivors = null;
            ClusterMap before = null;
            ClusterMap after = null;
            Set<String> failed = new HashSet<>();
            while (json.nextToken() == JsonToken.FIELD_NAME) {
                String field = json.currentName();
                JsonToken value = json.nextToken();
                if (field.equals("id") && value == JsonToken.VALUE_NUMBER_INT) {
                    id = json.getLongValue();
                } else if (field.equals("fromSurvivors") && value.isBoolean()) {
                    survivors = value == JsonToken.VALUE_TRUE;
                } else if (field.equals("before") && value == JsonToken.START_OBJECT) {
                    before = ClusterMapCodec.read(json);
                } else if (field.equals("after") && value == JsonToken.START_OBJECT) {
                    after = ClusterMapCodec.read(json);
                } else if (field.equals("withoutSources") && value == JsonToken.START_ARRAY) {
                    while (json.nextToken() == JsonToken.VALUE_STRING) {
                        failed.add(json.getText());
                    }
                    if (json.currentToken() != JsonToken.END_ARRAY) {
                        throw new IllegalArgumentException("withoutSources is an array of node URLs");
                    }
                } else {
                    json.skipChildren();
                }
            }
            if (id < 0 || survivors == null || before == null || after == null) {
                throw new IllegalArgumentException("a key movement needs id, fromSurvivors, before and after");
            }
            KeyMovement movement = new KeyMovement(id, before, after, survivors);
            return failed.isEmpty() ? movement : movement.withoutSources(failed);
        } catch (IOException e) {
            throw new IllegalArgumentException("malformed key movement: " + e.getMessage(), e);
        }
    }
}
