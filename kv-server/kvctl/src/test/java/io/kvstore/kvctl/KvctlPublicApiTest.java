package io.kvstore.kvctl;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.kvstore.core.testing.ApiSurface;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** kvctl is a program, not a library: its one public type is the class with {@code main}; every command is package-private. */
class KvctlPublicApiTest {
    private static final ApiSurface SURFACE = new ApiSurface(Kvctl.class, "io.kvstore.kvctl.internal.");

    @Test
    void onlyTheEntryPointIsPublic() throws Exception {
        SURFACE.assertPublicTypes("kvctl", Set.of("io.kvstore.kvctl.Kvctl"));
    }

    @Test
    void theScanSeesTheCommands() throws Exception {
        List<String> all = SURFACE.topLevelClassNames();
        assertTrue(all.contains("io.kvstore.kvctl.StatusCommand"), "no StatusCommand among " + all);
    }
}
