package io.xrpc.spring;

import java.nio.charset.StandardCharsets;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A real in-process ZooKeeper (curator-test's {@code TestingServer}) on a free port, a new one for
 * each test: {@code @RegisterExtension final TestZooKeeper zk = new TestZooKeeper();}. Like a
 * production ensemble should, it refuses every session without a digest identity, so the
 * applications under test reach it as {@link #USER} through {@link #address()}.
 */
public final class TestZooKeeper implements BeforeEachCallback, AfterEachCallback {
    public static final String USER = "xrpc";
    public static final String PASSWORD = "test-s3cret";

    private TestingServer server;

    @Override
    public void beforeEach(ExtensionContext context) throws Exception {
        // ZooKeeper reads these when the server is made; other servers of this JVM stay open.
        synchronized (TestZooKeeper.class) {
            System.setProperty("zookeeper.enforce.auth.enabled", "true");
            System.setProperty("zookeeper.enforce.auth.schemes", "digest");
            try {
                server = new TestingServer(InstanceSpec.newInstanceSpec(), true);
            } finally {
                System.clearProperty("zookeeper.enforce.auth.enabled");
                System.clearProperty("zookeeper.enforce.auth.schemes");
            }
        }
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        server.close();
    }

    /** {@code host:port} of the running server. */
    public String getConnectString() {
        return server.getConnectString();
    }

    /** The registry address with the test user's credentials: {@code zookeeper://user:password@host:port}. */
    public String address() {
        return "zookeeper://" + USER + ":" + PASSWORD + "@" + server.getConnectString();
    }

    /** A Curator client of the test user, started; the caller closes it. */
    public CuratorFramework inspector() {
        CuratorFramework c = CuratorFrameworkFactory.builder()
                .connectString(server.getConnectString())
                .retryPolicy(new RetryOneTime(100))
                .authorization("digest", (USER + ":" + PASSWORD).getBytes(StandardCharsets.UTF_8))
                .build();
        c.start();
        return c;
    }
}
