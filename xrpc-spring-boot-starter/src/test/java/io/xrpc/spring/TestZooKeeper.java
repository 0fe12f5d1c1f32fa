package io.xrpc.spring;

import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real in-process ZooKeeper (curator-test's {@code TestingServer}) on a free port, a new one for
 * each test: {@code @RegisterExtension final TestZooKeeper zk = new TestZooKeeper();}.
 */
public final class TestZooKeeper implements BeforeEachCallback, AfterEachCallback {
    private TestingServer server;

    @Override
    public void beforeEach(ExtensionContext context) throws Exception {
        server = new TestingServer(true);
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        server.close();
    }

    /** {@code host:port} of the running server. */
    public String getConnectString() {
        return server.getConnectString();
    }
}
