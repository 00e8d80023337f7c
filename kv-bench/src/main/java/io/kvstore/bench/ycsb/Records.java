package io.kvstore.bench.ycsb;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import site.ycsb.ByteArrayByteIterator;
import site.ycsb.ByteIterator;

/**
 * A YCSB record (field name to bytes) as one kvstore value:
 * {@code [int32 field count]([int32 name length][name UTF-8][int32 value length][value])*}.
 */
final class Records {
    private Records() {
    }

    static byte[] encode(Map<String, ByteIterator> fields) {
        Map<byte[], byte[]> parts = new HashMap<>();
        int size = 4;
        for (Map.Entry<String, ByteIterator> f : fields.entrySet()) {
            byte[] name = f.getKey().getBytes(StandardCharsets.UTF_8);
            byte[] value = f.getValue().toArray();
            parts.put(name, value);
            size += 8 + name.length + value.length;
        }
        ByteBuffer out = ByteBuffer.allocate(size).putInt(parts.size());
        parts.forEach((name, value) -> out.putInt(name.length).put(name).putInt(value.length).put(value));
        return out.array();
    }

    /** Decodes the fields named in {@code wanted} (all if null) into {@code result}. */
    static void decode(byte[] stored, Set<String> wanted, Map<String, ByteIterator> result) {
        ByteBuffer in = ByteBuffer.wrap(stored);
        int count = in.getInt();
        for (int i = 0; i < count; i++) {
            byte[] name = new byte[in.getInt()];
            in.get(name);
            int length = in.getInt();
            String field = new String(name, StandardCharsets.UTF_8);
            if (wanted == null || wanted.contains(field)) {
                result.put(field, new ByteArrayByteIterator(stored, in.position(), length));
            }
            in.position(in.position() + length);
        }
    }

    /** The stored record with {@code changes} applied, for YCSB's update (a read-modify-write). */
    static byte[] merge(byte[] stored, Map<String, ByteIterator> changes) {
        Map<String, ByteIterator> all = new HashMap<>();
        if (stored != null) {
            decode(stored, null, all);
        }
        all.putAll(changes);
        return encode(all);
    }
}
