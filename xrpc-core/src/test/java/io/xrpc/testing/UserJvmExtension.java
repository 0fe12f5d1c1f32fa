package io.xrpc.testing;

import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Fails every test JVM of every module that opens a JDK package or is given {@code --add-opens} or
 * {@code --add-exports} (a pom's argLine, a Maven config, a plugin): users run without them, so
 * tests run so would show what users do not get. Registered for every test class through
 * {@code META-INF/services} and JUnit's extension auto-detection, as {@link LeakCheckExtension}
 * is; the check runs once per JVM.
 */
public final class UserJvmExtension implements BeforeAllCallback {
    private static volatile boolean checked;

    @Override
    public void beforeAll(ExtensionContext context) {
        if (!checked) {
            UserJvm.assertNoPackageOpened(context.getRequiredTestClass());
            checked = true;
        }
    }
}
