package io.xrpc.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.util.List;

/** Checks that a test JVM runs as users' JVMs do: no JDK package opened, so what passes here passes for them. */
public final class UserJvm {
    private UserJvm() {}

    public static void assertNoPackageOpened(Class<?> testClass) {
        for (String pkg : List.of("java.lang", "java.util", "java.util.concurrent", "java.time", "java.math")) {
            assertThat(Object.class.getModule().isOpen(pkg, testClass.getModule()))
                    .as(pkg + " opened to the tests (an --add-opens in a pom's argLine, .mvn/jvm.config or"
                            + " JDK_JAVA_OPTIONS?); users run without it")
                    .isFalse();
        }
        assertThat(ManagementFactory.getRuntimeMXBean().getInputArguments())
                .as("the test JVM's arguments")
                .noneMatch(a -> a.startsWith("--add-opens") || a.startsWith("--add-exports"));
    }
}
