package io.xrpc.testing;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The clients of other languages the tests drive, and where they are: a test that needs one
 * assumes it is here and says what was skipped otherwise ({@code .ci/run} installs them).
 */
public final class ExternalTools {
    private ExternalTools() {}

    /** Where {@code .ci/run} installs the Node gRPC packages; {@code XRPC_NODE_MODULES} names another place. */
    public static final Path NODE_MODULES = Path.of(System.getenv()
            .getOrDefault("XRPC_NODE_MODULES", System.getProperty("user.home") + "/.cache/xrpc-node/node_modules"));

    /** Whether {@code command} runs here and exits 0 within 30 s. */
    public static boolean runs(String... command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }

    /** Whether the Node package {@code name} (such as {@code @grpc/grpc-js}) is in {@link #NODE_MODULES}. */
    public static boolean hasNodePackage(String name) {
        return Files.isDirectory(NODE_MODULES.resolve(name));
    }
}
