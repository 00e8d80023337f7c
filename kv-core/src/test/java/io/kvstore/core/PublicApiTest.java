package io.kvstore.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * kv-core's public API is the list below and nothing else: a public top-level class outside
 * {@code io.kvstore.core.internal} fails this test until it is added here on purpose, and no public
 * signature of the API may name an internal type.
 */
class PublicApiTest {
    private static final String INTERNAL = "io.kvstore.core.internal.";

    /** Every public top-level type of kv-core outside the internal packages. */
    private static final Set<String> API = Set.of(
            "io.kvstore.core.AtomicFile",
            "io.kvstore.core.BackgroundPriority",
            "io.kvstore.core.BlockCacheProperties",
            "io.kvstore.core.Bytes",
            "io.kvstore.core.CloseableIterator",
            "io.kvstore.core.CompactionStyle",
            "io.kvstore.core.Compression",
            "io.kvstore.core.CorruptionException",
            "io.kvstore.core.Dao",
            "io.kvstore.core.DaoOptions",
            "io.kvstore.core.DaoProperties",
            "io.kvstore.core.DaoStats",
            "io.kvstore.core.DiskFailurePolicy",
            "io.kvstore.core.DiskSpace",
            "io.kvstore.core.Engine",
            "io.kvstore.core.Entry",
            "io.kvstore.core.InsufficientStorageException",
            "io.kvstore.core.KeyFilter",
            "io.kvstore.core.KvStore",
            "io.kvstore.core.QuarantinedInterval",
            "io.kvstore.core.ScrubReport",
            "io.kvstore.core.Storage",
            "io.kvstore.core.StoreHealth",
            "io.kvstore.core.SyncPolicy",
            "io.kvstore.core.UnavailableIntervalException",
            "io.kvstore.core.WritesStoppedException",
            "io.kvstore.core.hash.XxHash64",
            "io.kvstore.core.rocksdb.RocksDbDao");

    @Test
    void onlyTheListedTypesArePublicOutsideInternal() throws Exception {
        List<String> all = topLevelClassNames();
        Set<String> publicOutsideInternal = new TreeSet<>();
        for (String name : all) {
            if (!name.startsWith(INTERNAL) && Modifier.isPublic(load(name).getModifiers())) {
                publicOutsideInternal.add(name);
            }
        }
        assertEquals(new TreeSet<>(API), publicOutsideInternal,
                "kv-core's public types changed: make a new class package-private, move it under "
                        + INTERNAL + "*, or add it to the API list on purpose");
    }

    @Test
    void theScanSeesTheInternalPackages() throws Exception {
        // Guards the scan itself: were it to miss the compiled classes, the list above could not fail.
        List<String> all = topLevelClassNames();
        assertTrue(all.contains(INTERNAL + "table.SsTable"), "no SsTable among " + all.size() + " classes");
        assertTrue(Modifier.isPublic(load(INTERNAL + "lsm.LsmDao").getModifiers()));
    }

    @Test
    void noApiSignatureNamesAnInternalType() throws Exception {
        List<String> leaks = new ArrayList<>();
        for (String name : new TreeSet<>(API)) {
            Class<?> type = load(name);
            for (Class<?> nested : type.getDeclaredClasses()) {
                if (isExposed(nested.getModifiers())) {
                    leaks.addAll(internalTypesIn(nested));
                }
            }
            leaks.addAll(internalTypesIn(type));
        }
        assertTrue(leaks.isEmpty(), "public signatures name internal types:\n" + String.join("\n", leaks));
    }

    private static List<String> internalTypesIn(Class<?> type) {
        List<String> leaks = new ArrayList<>();
        List<Class<?>> supertypes = new ArrayList<>(List.of(type.getInterfaces()));
        if (type.getSuperclass() != null) {
            supertypes.add(type.getSuperclass());
        }
        check(type.getName() + " extends", supertypes.toArray(Class<?>[]::new), leaks);
        for (Method method : type.getDeclaredMethods()) {
            if (isExposed(method.getModifiers()) && !method.isSynthetic()) {
                check(method.toString(), new Class<?>[] {method.getReturnType()}, leaks);
                check(method.toString(), method.getParameterTypes(), leaks);
                check(method.toString(), method.getExceptionTypes(), leaks);
            }
        }
        for (Constructor<?> constructor : type.getDeclaredConstructors()) {
            if (isExposed(constructor.getModifiers())) {
                check(constructor.toString(), constructor.getParameterTypes(), leaks);
            }
        }
        for (Field field : type.getDeclaredFields()) {
            if (isExposed(field.getModifiers())) {
                check(field.toString(), new Class<?>[] {field.getType()}, leaks);
            }
        }
        return leaks;
    }

    private static void check(String where, Class<?>[] types, List<String> leaks) {
        for (Class<?> type : types) {
            while (type.isArray()) {
                type = type.getComponentType();
            }
            if (type.getName().startsWith(INTERNAL)) {
                leaks.add(where + ": " + type.getName());
            }
        }
    }

    private static boolean isExposed(int modifiers) {
        return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers);
    }

    /** The binary names of kv-core's top-level classes, read from its compiled classes directory. */
    private static List<String> topLevelClassNames() throws IOException, URISyntaxException {
        Path classes = Path.of(Dao.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        assertTrue(Files.isDirectory(classes), "kv-core's classes are not a directory: " + classes);
        try (Stream<Path> files = Files.walk(classes)) {
            String separator = classes.getFileSystem().getSeparator();
            return files.map(classes::relativize)
                    .map(Path::toString)
                    .filter(f -> f.endsWith(".class") && !f.contains("$") && !f.endsWith("package-info.class"))
                    .map(f -> f.substring(0, f.length() - ".class".length()).replace(separator, "."))
                    .sorted()
                    .collect(Collectors.toList());
        }
    }

    private static Class<?> load(String name) throws ClassNotFoundException {
        return Class.forName(name, false, PublicApiTest.class.getClassLoader());
    }
}
