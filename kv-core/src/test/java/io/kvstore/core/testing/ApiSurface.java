package io.kvstore.core.testing;

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

/**
 * A module's public surface read from its compiled classes, for the modules' public-API tests: its
 * top-level classes, the public ones outside its internal packages, and the public signatures of its
 * API that name an internal type.
 */
public final class ApiSurface {
    private final Class<?> anchor;
    private final String internalPrefix;

    /**
     * @param anchor         any class of the module, whose classes directory is scanned
     * @param internalPrefix the package prefix of the module's internals, such as {@code "io.kvstore.core.internal."}
     */
    public ApiSurface(Class<?> anchor, String internalPrefix) {
        this.anchor = anchor;
        this.internalPrefix = internalPrefix;
    }

    /** The binary names of the module's top-level classes, sorted. */
    public List<String> topLevelClassNames() throws IOException, URISyntaxException {
        Path classes = Path.of(anchor.getProtectionDomain().getCodeSource().getLocation().toURI());
        if (!Files.isDirectory(classes)) {
            throw new IllegalStateException("the classes of " + anchor.getName() + " are not a directory: " + classes);
        }
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

    /** The public top-level classes outside the internal packages. */
    public Set<String> publicOutsideInternal() throws Exception {
        Set<String> found = new TreeSet<>();
        for (String name : topLevelClassNames()) {
            if (!name.startsWith(internalPrefix) && Modifier.isPublic(load(name).getModifiers())) {
                found.add(name);
            }
        }
        return found;
    }

    /**
     * Fails unless the public top-level classes outside the internal packages are exactly {@code api}, saying
     * what to do with a new one.
     */
    public void assertPublicTypes(String module, Set<String> api) throws Exception {
        assertEquals(new TreeSet<>(api), publicOutsideInternal(), module + "'s public types changed: make a new class"
                + " package-private, move it under " + internalPrefix + "*, or add it to the API list on purpose");
    }

    /** Fails if a public or protected signature of {@code api} names an internal type. */
    public void assertNoInternalTypeNamedBy(Set<String> api) throws ClassNotFoundException {
        List<String> leaks = internalTypesNamedBy(api);
        assertTrue(leaks.isEmpty(), "public signatures name internal types:\n" + String.join("\n", leaks));
    }

    /** Every public or protected signature of {@code api} (nested types included) that names an internal type. */
    public List<String> internalTypesNamedBy(Set<String> api) throws ClassNotFoundException {
        List<String> leaks = new ArrayList<>();
        for (String name : new TreeSet<>(api)) {
            Class<?> type = load(name);
            for (Class<?> nested : type.getDeclaredClasses()) {
                if (isExposed(nested.getModifiers())) {
                    leaks.addAll(internalTypesIn(nested));
                }
            }
            leaks.addAll(internalTypesIn(type));
        }
        return leaks;
    }

    public Class<?> load(String name) throws ClassNotFoundException {
        return Class.forName(name, false, anchor.getClassLoader());
    }

    private List<String> internalTypesIn(Class<?> type) {
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

    private void check(String where, Class<?>[] types, List<String> leaks) {
        for (Class<?> type : types) {
            while (type.isArray()) {
                type = type.getComponentType();
            }
            if (type.getName().startsWith(internalPrefix)) {
                leaks.add(where + ": " + type.getName());
            }
        }
    }

    private static boolean isExposed(int modifiers) {
        return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers);
    }
}
