package io.xrpc.registry.zookeeper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.xrpc.client.RpcClient;
import io.xrpc.common.Endpoint;
import io.xrpc.common.RpcException;
import io.xrpc.common.ServiceKey;
import io.xrpc.config.ReferenceOptions;
import io.xrpc.registry.Registries;
import io.xrpc.registry.Registry;
import io.xrpc.registry.RegistryConfig;
import io.xrpc.registry.ServiceDiscovery;
import io.xrpc.registry.ServiceInstance;
import io.xrpc.registry.zookeeper.discover.InstanceDirectory;
import io.xrpc.registry.zookeeper.layout.NodeCodec;
import io.xrpc.registry.zookeeper.session.ZookeeperAcl;
import io.xrpc.server.RpcServer;
import io.xrpc.testing.CapturedErr;
import io.xrpc.testing.GateService;
import io.xrpc.testing.GateServiceImpl;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.server.auth.DigestAuthenticationProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The registry as the front door: a ZooKeeper anyone on the network can reach. A rogue provider
 * node would send consumers, and their tokens, to the attacker; with credentials, nobody without
 * them can add one, and a consumer believes no provider it cannot attribute.
 */
@Timeout(90)
class RegistryAclTest {
    private static final String PROVIDERS = NodeCodec.providersPath("/xrpc", ServiceKey.of(GateService.class, "", ""));

    private TestingServer zk;
    /** Where the attacker's provider listens, and how many connections reached it. */
    private ServerSocket rogue;

    private final AtomicInteger rogueConnections = new AtomicInteger();

    @BeforeEach
    void start() throws Exception {
        zk = new TestingServer(true);
        rogue = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread t = new Thread(
                () -> {
                    while (!rogue.isClosed()) {
                        try (Socket s = rogue.accept()) {
                            rogueConnections.incrementAndGet();
                        } catch (IOException closed) {
                            return;
                        }
                    }
                },
                "rogue-provider");
        t.setDaemon(true);
        t.start();
    }

    @AfterEach
    void stop() throws Exception {
        rogue.close();
        zk.close();
    }

    /** The per-service layout, whose providers node most of these tests attack. */
    private String secured(String user, String password) {
        return perInstance(user, password) + "&mode=interface";
    }

    private String perInstance(String user, String password) {
        return "zookeeper://" + user + ":" + password + "@" + zk.getConnectString() + "?connect-timeout=10s";
    }

    private CuratorFramework attacker(String digest) {
        CuratorFrameworkFactory.Builder b = CuratorFrameworkFactory.builder()
                .connectString(zk.getConnectString())
                .retryPolicy(new RetryOneTime(100));
        if (digest != null) {
            b.authorization("digest", digest.getBytes(StandardCharsets.UTF_8));
        }
        CuratorFramework c = b.build();
        c.start();
        return c;
    }

    private String rogueNode() {
        return PROVIDERS + "/127.0.0.1:" + rogue.getLocalPort();
    }

    @Test
    void nobodyWithoutTheProvidersCredentialsCanAddAProvider() throws Exception {
        try (RpcServer server = RpcServer.builder()
                        .host("127.0.0.1")
                        .registry(secured("xrpc", "s3cret"))
                        .service(GateService.class, new GateServiceImpl("real"))
                        .build()
                        .start();
                RpcClient client =
                        RpcClient.builder().registry(secured("xrpc", "s3cret")).build();
                CuratorFramework anonymous = attacker(null);
                CuratorFramework otherUser = attacker("mallory:guess")) {
            GateService gate =
                    client.proxy(GateService.class, ReferenceOptions.builder().build());
            await().atMost(Duration.ofSeconds(10))
                    .ignoreException(RpcException.class)
                    .until(() -> "real".equals(gate.whoAmI()));

            // What an attacker on the network did against main: a provider node with a huge weight.
            for (CuratorFramework a : List.of(anonymous, otherUser)) {
                assertThatThrownBy(() -> a.create()
                                .withMode(CreateMode.EPHEMERAL)
                                .forPath(rogueNode(), "weight=10000".getBytes(StandardCharsets.UTF_8)))
                        .isInstanceOf(KeeperException.NoAuthException.class);
                assertThatThrownBy(() ->
                                a.setACL().withACL(ZooDefs.Ids.OPEN_ACL_UNSAFE).forPath(PROVIDERS))
                        .isInstanceOf(KeeperException.NoAuthException.class);
                assertThatThrownBy(() -> a.delete().deletingChildrenIfNeeded().forPath("/xrpc"))
                        .isInstanceOf(KeeperException.NoAuthException.class);
            }
            // Consumers may still read: discovery needs no credentials of its own to look.
            assertThat(anonymous.getChildren().forPath(PROVIDERS)).hasSize(1);
            for (int i = 0; i < 50; i++) {
                assertThat(gate.whoAmI()).isEqualTo("real");
            }
            assertThat(rogueConnections).hasValue(0);
        }
    }

    /**
     * The per-instance layout: nobody without the credentials can add an instance under the
     * providers' application; an application the attacker made open, mapped to the interface, with
     * a revision that hashes right, is not believed; a revision whose content does not match its
     * name is not read.
     */
    @Test
    void perInstanceLayoutBelievesOnlyInstancesItCanAttribute() throws Exception {
        ServiceKey key = ServiceKey.of(GateService.class, "", "");
        ServiceInstance rogueInstance = ServiceInstance.of(key, new Endpoint("127.0.0.1", rogue.getLocalPort()));
        byte[] content = NodeCodec.encodeRevision(List.of(rogueInstance));
        String revision = NodeCodec.revisionOf(content);
        try (CuratorFramework anonymous = attacker(null)) {
            // An open application of the attacker's, mapped to the interface before any provider came.
            anonymous
                    .create()
                    .creatingParentsIfNeeded()
                    .forPath(NodeCodec.mappingPath("/xrpc", key.interfaceName()) + "/evil");
            anonymous
                    .create()
                    .creatingParentsIfNeeded()
                    .forPath(NodeCodec.revisionPath("/xrpc", "evil", revision), content);
            anonymous
                    .create()
                    .creatingParentsIfNeeded()
                    .withMode(CreateMode.EPHEMERAL)
                    .forPath(NodeCodec.instancesPath("/xrpc", "evil") + "/"
                            + NodeCodec.instanceName(rogueInstance.endpoint(), revision));
            try (RpcServer server = RpcServer.builder()
                            .host("127.0.0.1")
                            .registry(perInstance("xrpc", "s3cret"))
                            .service(GateService.class, new GateServiceImpl("real"))
                            .build()
                            .start();
                    RpcClient client = RpcClient.builder()
                            .registry(perInstance("xrpc", "s3cret"))
                            .build()) {
                GateService gate = client.proxy(
                        GateService.class, ReferenceOptions.builder().build());
                await().atMost(Duration.ofSeconds(10))
                        .ignoreException(RpcException.class)
                        .until(() -> "real".equals(gate.whoAmI()));
                // Under the providers' own application nobody else can add an instance.
                String dir = NodeCodec.instancesPath("/xrpc", ZookeeperSettings.DEFAULT_APPLICATION);
                assertThatThrownBy(() -> anonymous
                                .create()
                                .withMode(CreateMode.EPHEMERAL)
                                .forPath(dir + "/" + NodeCodec.instanceName(rogueInstance.endpoint(), revision)))
                        .isInstanceOf(KeeperException.NoAuthException.class);
                for (int i = 0; i < 50; i++) {
                    assertThat(gate.whoAmI()).isEqualTo("real");
                }
                assertThat(rogueConnections).hasValue(0);
            }
            // Without credentials nothing is checked but the revision's hash: the evil application's
            // instance is listed while its revision is what its name says, and not once forged.
            try (ZookeeperRegistry open = (ZookeeperRegistry)
                    Registries.create("zookeeper://" + zk.getConnectString() + "?connect-timeout=10s")) {
                assertThat(open.subscribe(key, l -> {}).instances())
                        .extracting(ServiceInstance::endpoint)
                        .contains(rogueInstance.endpoint());
            }
            anonymous
                    .setData()
                    .forPath(
                            NodeCodec.revisionPath("/xrpc", "evil", revision),
                            NodeCodec.encodeRevision(List.of(ServiceInstance.of(
                                    ServiceKey.of(GateService.class, "2.0", ""), rogueInstance.endpoint()))));
            try (ZookeeperRegistry open = (ZookeeperRegistry)
                    Registries.create("zookeeper://" + zk.getConnectString() + "?connect-timeout=10s")) {
                assertThat(open.subscribe(ServiceKey.of(GateService.class, "2.0", ""), l -> {})
                                .instances())
                        .isEmpty();
            }
        }
    }

    /**
     * More applications than a consumer follows, each open and mapped to the interface before the
     * real provider came: with credentials none of them counts, so the real one is followed.
     */
    @Test
    void applicationsNobodyCanAttributeCannotCrowdOutTheRealOne() throws Exception {
        ServiceKey key = ServiceKey.of(GateService.class, "", "");
        try (CuratorFramework anonymous = attacker(null)) {
            for (int i = 0; i < InstanceDirectory.MAX_APPS_PER_INTERFACE + 36; i++) {
                ServiceInstance fake = ServiceInstance.of(key, new Endpoint("127.0.0.1", rogue.getLocalPort()));
                byte[] content = NodeCodec.encodeRevision(List.of(fake));
                String revision = NodeCodec.revisionOf(content);
                anonymous
                        .create()
                        .creatingParentsIfNeeded()
                        .forPath(NodeCodec.mappingPath("/xrpc", key.interfaceName()) + "/aaa" + i);
                anonymous
                        .create()
                        .creatingParentsIfNeeded()
                        .forPath(NodeCodec.revisionPath("/xrpc", "aaa" + i, revision), content);
                anonymous
                        .create()
                        .creatingParentsIfNeeded()
                        .forPath(NodeCodec.instancesPath("/xrpc", "aaa" + i) + "/"
                                + NodeCodec.instanceName(fake.endpoint(), revision));
            }
            try (RpcServer server = RpcServer.builder()
                            .host("127.0.0.1")
                            .registry(perInstance("xrpc", "s3cret"))
                            .service(GateService.class, new GateServiceImpl("real"))
                            .build()
                            .start();
                    ZookeeperRegistry consumer = (ZookeeperRegistry) Registries.create(perInstance("xrpc", "s3cret"))) {
                ServiceDiscovery.Subscription sub = consumer.subscribe(key, l -> {});
                assertThat(sub.instances())
                        .extracting(ServiceInstance::endpoint)
                        .containsExactly(server.advertisedEndpoint());
                assertThat(consumer.describe().get("applications")).isEqualTo(1);
            }
        }
    }

    @Test
    void aConsumerWithCredentialsBelievesNoProviderWrittenWhileTheNodeWasOpen() throws Exception {
        try (CuratorFramework anonymous = attacker(null)) {
            // The attacker was first: the providers node is open, and a rogue provider waits under it.
            anonymous
                    .create()
                    .creatingParentsIfNeeded()
                    .forPath(rogueNode(), "weight=10000".getBytes(StandardCharsets.UTF_8));
            try (ZookeeperRegistry consumer = (ZookeeperRegistry) Registries.create(secured("xrpc", "s3cret"))) {
                assertThat(consumer.secured()).isTrue();
                ServiceKey key = ServiceKey.of(GateService.class, "", "");
                assertThat(consumer.subscribe(key, l -> {}).instances()).isEmpty();

                // The real provider closes the node as it registers; the rogue's node predates that.
                try (RpcServer server = RpcServer.builder()
                                .host("127.0.0.1")
                                .registry(secured("xrpc", "s3cret"))
                                .service(GateService.class, new GateServiceImpl("real"))
                                .build()
                                .start();
                        RpcClient client =
                                RpcClient.builder().registry(consumer).build()) {
                    assertThat(ZookeeperAcl.anyoneMayCreate(anonymous.getACL().forPath(PROVIDERS)))
                            .isFalse();
                    // Made anew: what was written under it while it was open is gone.
                    assertThat(anonymous.getChildren().forPath(PROVIDERS))
                            .hasSize(1)
                            .doesNotContain("127.0.0.1:" + rogue.getLocalPort());
                    GateService gate = client.proxy(
                            GateService.class, ReferenceOptions.builder().build());
                    await().atMost(Duration.ofSeconds(10))
                            .ignoreException(RpcException.class)
                            .until(() -> "real".equals(gate.whoAmI()));
                    for (int i = 0; i < 50; i++) {
                        assertThat(gate.whoAmI()).isEqualTo("real");
                    }
                    assertThat(client.references().get(0).providers()).hasSize(1);
                }
            }
        }
        assertThat(rogueConnections).hasValue(0);
    }

    /**
     * Before: a consumer without credentials believed nodes anyone planted before the providers
     * registered (10-20 of 20 calls and their tokens reached a rogue in a test from outside). Now
     * it can name whom it trusts to create provider nodes, and believes only them.
     */
    @Test
    void aReadOnlyConsumerBelievesOnlyTheIdentityItTrusts() throws Exception {
        // ZooKeeper shows a digest id's hash only to a session with admin rights on the node, so a
        // read-only consumer trusts an id it can see whole: here the providers' address range.
        RegistryConfig readOnly = RegistryConfig.builder(
                        "zookeeper://" + zk.getConnectString() + "?connect-timeout=10s&mode=interface")
                .parameter("trust", "ip:127.0.0.1")
                .build();
        String providers = perInstance("xrpc", "s3cret") + "&mode=interface&acl=ip:127.0.0.1:cdrwa,world:anyone:r";
        try (CuratorFramework anonymous = attacker(null)) {
            anonymous
                    .create()
                    .creatingParentsIfNeeded()
                    .forPath(rogueNode(), "weight=10000".getBytes(StandardCharsets.UTF_8));
            try (Registry consumerRegistry = Registries.create(readOnly)) {
                ServiceKey key = ServiceKey.of(GateService.class, "", "");
                assertThat(((ServiceDiscovery) consumerRegistry)
                                .subscribe(key, l -> {})
                                .instances())
                        .as("the planted node")
                        .isEmpty();
                try (RpcServer server = RpcServer.builder()
                                .host("127.0.0.1")
                                .registry(providers)
                                .service(GateService.class, new GateServiceImpl("real"))
                                .build()
                                .start();
                        RpcClient client =
                                RpcClient.builder().registry(consumerRegistry).build()) {
                    GateService gate = client.proxy(
                            GateService.class, ReferenceOptions.builder().build());
                    await().atMost(Duration.ofSeconds(10))
                            .ignoreException(RpcException.class)
                            .until(() -> "real".equals(gate.whoAmI()));
                    for (int i = 0; i < 20; i++) {
                        assertThat(gate.whoAmI()).isEqualTo("real");
                    }
                }
            }
        }
        assertThat(rogueConnections).hasValue(0);
    }

    @Test
    void anIpRangeOfEveryAddressIsAsOpenAsAnyoneAndCannotBeTrusted() {
        assertThat(ZookeeperAcl.anyoneMayCreate(List.of(new ACL(ZooDefs.Perms.CREATE, new Id("ip", "0.0.0.0/0")))))
                .isTrue();
        assertThat(ZookeeperAcl.anyoneMayCreate(List.of(new ACL(ZooDefs.Perms.ALL, new Id("ip", "::/0")))))
                .isTrue();
        assertThat(ZookeeperAcl.anyoneMayCreate(List.of(new ACL(ZooDefs.Perms.ALL, new Id("ip", "10.0.0.0/8")))))
                .isFalse();
        assertThatThrownBy(() -> Registries.create(RegistryConfig.builder("zookeeper://" + zk.getConnectString())
                        .parameter("trust", "ip:0.0.0.0/0")
                        .build()))
                .hasMessageContaining("stands for everyone");
        assertThatThrownBy(() -> Registries.create(RegistryConfig.builder("zookeeper://" + zk.getConnectString())
                        .parameter("trust", "nonsense")
                        .build()))
                .hasMessageContaining("is not scheme:id");
        // A read-only session sees a digest id as user:x: it could not tell the providers from a namesake.
        assertThatThrownBy(() -> Registries.create(RegistryConfig.builder("zookeeper://" + zk.getConnectString())
                        .parameter("trust", "digest:xrpc:PdJZO7I/ayUbGbJFvgkOPpWmzPo=")
                        .build()))
                .hasMessageContaining("admin rights");
    }

    /** A consumer that believes anyone says so, once, when the tree it reads is written by someone in particular. */
    @Test
    void aConsumerWithoutCredentialsOrTrustOnASecuredTreeIsWarned() throws Exception {
        try (RpcServer server = RpcServer.builder()
                        .host("127.0.0.1")
                        .registry(secured("xrpc", "s3cret"))
                        .service(GateService.class, new GateServiceImpl("real"))
                        .build()
                        .start();
                CapturedErr err = new CapturedErr();
                RpcClient client = RpcClient.builder()
                        .registry("zookeeper://" + zk.getConnectString() + "?connect-timeout=10s&mode=interface")
                        .build()) {
            GateService gate =
                    client.proxy(GateService.class, ReferenceOptions.builder().build());
            await().atMost(Duration.ofSeconds(10))
                    .ignoreException(RpcException.class)
                    .until(() -> "real".equals(gate.whoAmI()));
            await().atMost(Duration.ofSeconds(10)).until(() -> err.text().contains("believes providers from anyone"));
            assertThat(err.text()).contains("set trust=");
        }
    }

    /**
     * Digest identities are self-asserted: an attacker can make the providers node first under a
     * name of his own and close it; or make it open, add a provider and then close it naming the
     * providers' identity. Neither is believed.
     */
    @Test
    void aProvidersNodeMadeOrReopenedBySomeoneElseIsNotBelieved() throws Exception {
        ServiceKey key = ServiceKey.of(GateService.class, "", "");
        String ours = DigestAuthenticationProvider.generateDigest("xrpc:s3cret");
        try (CuratorFramework mallory = attacker("mallory:guess");
                ZookeeperRegistry consumer = (ZookeeperRegistry) Registries.create(secured("xrpc", "s3cret"))) {
            // His own identity, closed to everyone else.
            mallory.create()
                    .creatingParentsIfNeeded()
                    .withACL(Arrays.asList(
                            new ACL(ZooDefs.Perms.ALL, ZooDefs.Ids.AUTH_IDS),
                            new ACL(ZooDefs.Perms.READ, ZooDefs.Ids.ANYONE_ID_UNSAFE)))
                    .forPath(rogueNode(), "weight=10000".getBytes(StandardCharsets.UTF_8));
            mallory.setACL()
                    .withACL(Arrays.asList(
                            new ACL(ZooDefs.Perms.ALL, ZooDefs.Ids.AUTH_IDS),
                            new ACL(ZooDefs.Perms.READ, ZooDefs.Ids.ANYONE_ID_UNSAFE)))
                    .forPath(PROVIDERS);
            assertThat(consumer.subscribe(key, l -> {}).instances()).isEmpty();
        }
        zk.close(); // only ZooKeeper's admin could remove that node: start over with a fresh ensemble
        zk = new TestingServer(true);
        try (CuratorFramework anonymous = attacker(null);
                ZookeeperRegistry consumer = (ZookeeperRegistry) Registries.create(secured("xrpc", "s3cret"))) {
            // Open, a rogue provider, then closed naming the providers' own identity.
            anonymous
                    .create()
                    .creatingParentsIfNeeded()
                    .forPath(rogueNode(), "weight=10000".getBytes(StandardCharsets.UTF_8));
            anonymous
                    .setACL()
                    .withACL(Arrays.asList(
                            new ACL(ZooDefs.Perms.ALL, new Id("digest", ours)),
                            new ACL(ZooDefs.Perms.READ, ZooDefs.Ids.ANYONE_ID_UNSAFE)))
                    .forPath(PROVIDERS);
            ServiceDiscovery.Subscription sub = consumer.subscribe(key, l -> {});
            assertThat(sub.instances()).as("its ACL changed since it was made").isEmpty();
            // The real provider makes it anew; then only the real provider is listed.
            try (RpcServer server = RpcServer.builder()
                    .host("127.0.0.1")
                    .registry(secured("xrpc", "s3cret"))
                    .service(GateService.class, new GateServiceImpl("real"))
                    .build()
                    .start()) {
                await().atMost(Duration.ofSeconds(10))
                        .until(() -> sub.instances().size() == 1
                                && sub.instances().get(0).endpoint().port()
                                        == server.advertisedEndpoint().port());
            }
        }
        assertThat(rogueConnections).hasValue(0);
    }

    @Test
    void theAclCanBeGivenAndIsChecked() throws Exception {
        String acl = "auth::cdrwa,world:anyone:r";
        try (ZookeeperRegistry r = (ZookeeperRegistry)
                Registries.create(secured("ops", "pw") + "&acl=" + URLEncoder.encode(acl, StandardCharsets.UTF_8))) {
            r.register(ServiceInstance.of(ServiceKey.of(GateService.class, "", ""), new Endpoint("127.0.0.1", 20999)));
            assertThat(ZookeeperAcl.describe(r.curator().getACL().forPath(PROVIDERS + "/127.0.0.1:20999")))
                    .isEqualTo("digest:ops:…:cdrwa,world:anyone:r");
        }
        assertThatThrownBy(() -> Registries.create("zookeeper://" + zk.getConnectString() + "?acl=auth::cdrwa"))
                .hasMessageContaining("presents no identity");
        assertThatThrownBy(() -> Registries.create("zookeeper://" + zk.getConnectString() + "?acl=world:anyone:rx"))
                .hasMessageContaining("'x' in 'world:anyone:rx' is not one of the permissions cdrwa");
    }

    @Test
    void thePasswordIsNeverPrinted() {
        RegistryConfig c = RegistryConfig.builder("zookeeper://xrpc:s%40cret@zk1:2181,zk2:2181?root-path=/a")
                .build();
        assertThat(c.username()).isEqualTo("xrpc");
        assertThat(c.password()).isEqualTo("s@cret");
        assertThat(c.address()).isEqualTo("zk1:2181,zk2:2181");
        assertThat(c.toString())
                .doesNotContain("s@cret")
                .doesNotContain("s%40cret")
                .contains("xrpc:****@zk1");
        assertThatThrownBy(() -> RegistryConfig.builder("zookeeper://xrpc:hunter2@zk1:2181?bad")
                        .build())
                .hasMessageNotContaining("hunter2")
                .hasMessageContaining("xrpc:****@zk1");
        assertThatThrownBy(() -> RegistryConfig.builder("zookeeper://xrpc:hun%zzter2@zk1:2181")
                        .build())
                .hasMessageNotContaining("hunter2")
                .hasMessageNotContaining("zzter");
        // A '?' left unencoded in the password, a trust store's password as a parameter.
        assertThatThrownBy(() -> RegistryConfig.builder("zookeeper://xrpc:hun?ter2@zk1:2181")
                        .build())
                .hasMessageNotContaining("hun")
                .hasMessageNotContaining("ter2");
        RegistryConfig tls = RegistryConfig.builder(
                        "zookeeper://zk1:2281?zookeeper.ssl.trustStore.password=changeit" + "&root-path=/a")
                .build();
        assertThat(tls.toString())
                .doesNotContain("changeit")
                .contains("zookeeper.ssl.trustStore.password=****")
                .contains("root-path=/a");
        assertThatThrownBy(() -> ZookeeperSettings.of(RegistryConfig.builder(
                                "zookeeper://zk1:2281?" + "zookeeper.ssl.keyStore.password=changeit&bogus=1")
                        .build()))
                .hasMessageContaining("unknown parameter 'bogus'")
                .hasMessageNotContaining("changeit");
        try (Registry r = Registries.create(secured("xrpc", "hunter2"))) {
            assertThat(r.describe().toString()).doesNotContain("hunter2").contains("digest:xrpc");
        }
    }

    /**
     * zookeeper.* parameters reach ZooKeeper's client as given: asked to speak TLS to this
     * plaintext server, it cannot connect; the same address without them can.
     */
    @Test
    void zookeeperClientPropertiesArePassedThrough() {
        String tls =
                "zookeeper.client.secure=true&zookeeper.clientCnxnSocket=org.apache.zookeeper.ClientCnxnSocketNetty";
        ZookeeperSettings settings =
                ZookeeperSettings.of(RegistryConfig.builder("zookeeper://" + zk.getConnectString() + "?" + tls)
                        .build());
        assertThat(settings.clientProperties()).containsEntry("zookeeper.client.secure", "true");
        assertThatThrownBy(() -> Registries.create(
                        "zookeeper://xrpc:s3cret@" + zk.getConnectString() + "?connect-timeout=2s&" + tls))
                .hasMessageContaining("cannot connect to ZooKeeper at " + zk.getConnectString() + " within 2000 ms")
                .hasMessageNotContaining("s3cret");
        try (Registry plain = Registries.create(secured("xrpc", "s3cret"))) {
            assertThat(plain.isConnected()).isTrue();
        }
    }

    /** An ensemble that refuses every unauthenticated session (ZooKeeper's enforce.auth). */
    @Test
    void anEnsembleThatRequiresAuthenticationServesProvidersAndConsumersWithCredentials() throws Exception {
        try (TestingServer enforcing = enforcingDigest()) {
            String address = "zookeeper://xrpc:s3cret@" + enforcing.getConnectString() + "?connect-timeout=10s";
            try (RpcServer server = RpcServer.builder()
                            .host("127.0.0.1")
                            .registry(address)
                            .service(GateService.class, new GateServiceImpl("real"))
                            .build()
                            .start();
                    RpcClient client = RpcClient.builder().registry(address).build()) {
                GateService gate = client.proxy(
                        GateService.class, ReferenceOptions.builder().build());
                await().atMost(Duration.ofSeconds(10))
                        .ignoreException(RpcException.class)
                        .until(() -> "real".equals(gate.whoAmI()));
            }
            assertThatThrownBy(() ->
                            Registries.create("zookeeper://" + enforcing.getConnectString() + "?connect-timeout=3s"))
                    .hasMessageContaining("ended the session of anonymous at its first request")
                    .hasMessageContaining("require authentication");
        }
    }

    /**
     * A TestingServer whose ZooKeeper refuses sessions without a digest identity. ZooKeeper reads
     * the setting from system properties when the server is made, so they are set only meanwhile.
     */
    static TestingServer enforcingDigest() throws Exception {
        synchronized (RegistryAclTest.class) {
            System.setProperty("zookeeper.enforce.auth.enabled", "true");
            System.setProperty("zookeeper.enforce.auth.schemes", "digest");
            try {
                return new TestingServer(InstanceSpec.newInstanceSpec(), true);
            } finally {
                System.clearProperty("zookeeper.enforce.auth.enabled");
                System.clearProperty("zookeeper.enforce.auth.schemes");
            }
        }
    }
}
