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

/**
 * A {@link KeyMovement}'s JSON form, as the node driving a change asks a node to stream:
 * {@code {"id":4,"fromSurvivors":false,"before":{map},"after":{map}}}.
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
                } else {
                    json.skipChildren();
                }
            }
            if (id < 0 || survivors == null || before == null || after == null) {
                throw new IllegalArgumentException("a key movement needs id, fromSurvivors, before and after");
            }
            return new KeyMovement(id, before, after, survivors);
        } catch (IOException e) {
            throw new IllegalArgumentException("malformed key movement: " + e.getMessage(), e);
        }
    }
}
