package io.xrpc.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.util.List;

/** Checks that a test JVM runs as users' JVMs do: no JDK package opened, so what passes here passes for them. */
public final class UserJvm {
    private UserJvm() {
    }

    public static void assertNoPackageOpened(Class<?> testClass) {
        for (String pkg : List.of("java.lang", "java.util", "java.util.concurrent", "java.time", "java.math")) {
            assertThat(Object.class.getModule().isOpen(pkg, testClass.getModule()))
                    .as(pkg + " opened to the tests").isFalse();
        }
        assertThat(ManagementFactory.getRuntimeMXBean().getInputArguments())
                .noneMatch(a -> a.startsWith("--add-opens") || a.startsWith("--add-exports"));
    }
}
