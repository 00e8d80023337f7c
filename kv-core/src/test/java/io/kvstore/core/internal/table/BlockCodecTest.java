package io.kvstore.core.internal.table;

import io.kvstore.core.Compression;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Each codec restores every block exactly, whatever its size against the thread's direct buffers and
 * wherever the compressed bytes sit (a mapped table, a heap buffer), and refuses damaged input.
 */
class BlockCodecTest {
    /** Compressible text: repeated words with a little noise, {@code length} bytes. */
    private static byte[] block(int length, long seed) {
        Random random = new Random(seed);
        String[] words = {"alpha", "north", "silver", "thistle", "harbor", "{\"id\":", "\"tags\":["};
        StringBuilder text = new StringBuilder(length + 16);
        while (text.length() < length) {
            text.append(words[random.nextInt(words.length)]).append(random.nextInt(1000));
        }
        return Arrays.copyOf(text.toString().getBytes(StandardCharsets.US_ASCII), length);
    }

    private static byte[] compressed(BlockCodec codec, byte[] plain) {
        byte[] out = new byte[codec.maxCompressedLength(plain.length)];
        return Arrays.copyOf(out, codec.compress(plain, plain.length, out));
    }

    /** {@code bytes} at offset 7 of a buffer, direct or not, with garbage around it. */
    private static ByteBuffer placed(byte[] bytes, boolean direct) {
        ByteBuffer buffer = direct ? ByteBuffer.allocateDirect(bytes.length + 14) : ByteBuffer.allocate(bytes.length + 14);
        buffer.put(0, new byte[7]).put(7, bytes).put(7 + bytes.length, new byte[] {1, 2, 3, 4, 5, 6, 7});
        return buffer;
    }

    @ParameterizedTest
    @EnumSource(Compression.class)
    void blocksOfEverySizeRoundTripFromDirectAndHeapBuffers(Compression compression) {
        BlockCodec codec = BlockCodec.of(compression);
        // Sizes around and far past the initial 16 KiB direct buffers, then small again after they grew.
        for (int length : new int[] {1, 100, 4096, 16 << 10, (16 << 10) + 1, 100_000, 1 << 20, 300}) {
            byte[] plain = block(length, length);
            byte[] packed = compressed(codec, plain);
            if (!codec.isIdentity()) {
                assertTrue(length < 4096 || packed.length < length * 3 / 4, compression + " compressed " + length + " to " + packed.length);
            }
            for (boolean direct : new boolean[] {true, false}) {
                byte[] restored = new byte[length + 5];
                Arrays.fill(restored, (byte) 'x');
                codec.decompress(placed(packed, direct), 7, packed.length, restored, length);
                assertArrayEquals(plain, Arrays.copyOf(restored, length), compression + ", " + length + " bytes, direct " + direct);
                assertArrayEquals(new byte[] {'x', 'x', 'x', 'x', 'x'}, Arrays.copyOfRange(restored, length, length + 5),
                        "wrote past the block");
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = Compression.class, names = {"LZ4", "ZSTD"})
    void damagedOrMislabelledInputIsRefused(Compression compression) {
        BlockCodec codec = BlockCodec.of(compression);
        byte[] plain = block(20_000, 3);
        byte[] packed = compressed(codec, plain);
        for (boolean direct : new boolean[] {true, false}) {
            // One byte short of the block's real size: the codec must stop, not write past it or guess.
            assertThrows(IllegalStateException.class,
                    () -> codec.decompress(placed(packed, direct), 7, packed.length, new byte[plain.length], plain.length - 1));
            byte[] truncated = Arrays.copyOf(packed, packed.length / 2);
            assertThrows(IllegalStateException.class,
                    () -> codec.decompress(placed(truncated, direct), 7, truncated.length, new byte[plain.length], plain.length));
        }
    }
}
