package io.xrpc.transport.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.xrpc.client.RpcClient;
import io.xrpc.common.RpcStatus;
import io.xrpc.config.ReferenceOptions;
import io.xrpc.protocol.MessageType;
import io.xrpc.protocol.ProtocolConstants;
import io.xrpc.server.RpcServer;
import io.xrpc.testing.TypesService;
import io.xrpc.testing.TypesServiceImpl;
import java.io.DataInputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Misbehaving peers on raw sockets: each loses its own connection, nobody else notices. */
class BadPeerTest {
    static RpcServer server;
    static RpcClient client;
    static TypesService service;

    @BeforeAll
    static void start() {
        server = RpcServer.builder()
                .host("127.0.0.1")
                .maxFrameLength(64 * 1024)
                .heartbeatInterval(Duration.ofMillis(200))
                .service(TypesService.class, new TypesServiceImpl())
                .build()
                .start();
        client = RpcClient.builder().build();
        service = client.proxy(
                TypesService.class,
                ReferenceOptions.builder().address(server.endpoint()).build());
    }

    @AfterAll
    static void stop() {
        client.close();
        server.close();
    }

    private static Socket connect() throws Exception {
        Socket s = new Socket("127.0.0.1", server.port());
        s.setSoTimeout(10_000);
        return s;
    }

    /** Reads until the server closes the socket; returns the bytes read. */
    private static byte[] readUntilClosed(Socket s) throws Exception {
        return s.getInputStream().readAllBytes();
    }

    @Test
    void garbageClosesThatConnectionWhileAnotherClientKeepsCalling() throws Exception {
        ExecutorService caller = Executors.newSingleThreadExecutor();
        try (Socket bad = connect()) {
            Future<Integer> calls = caller.submit(() -> {
                int ok = 0;
                for (int i = 0; i < 500; i++) {
                    if (service.echo("x" + i).equals("x" + i)) {
                        ok++;
                    }
                }
                return ok;
            });
            OutputStream out = bad.getOutputStream();
            out.write("\u0000\u0001 neither XRpc nor HTTP\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            assertThat(readUntilClosed(bad))
                    .as("nothing is answered to garbage")
                    .isEmpty();
            assertThat(calls.get(30, TimeUnit.SECONDS)).isEqualTo(500);
        } finally {
            caller.shutdownNow();
        }
        assertThat(service.echo("after")).isEqualTo("after");
    }

    @Test
    void anHttpRequestToAServerWithHttpOffIsClosedUnanswered() throws Exception {
        try (RpcServer xrpcOnly = RpcServer.builder()
                        .host("127.0.0.1")
                        .http(false)
                        .service(TypesService.class, new TypesServiceImpl())
                        .build()
                        .start();
                Socket s = new Socket("127.0.0.1", xrpcOnly.port())) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            assertThat(readUntilClosed(s))
                    .as("an XRpc-only port answers HTTP nothing")
                    .isEmpty();
        }
    }

    @Test
    void oversizeFrameIsRefusedAndOnlyThatConnectionCloses() throws Exception {
        try (Socket bad = connect()) {
            ByteBuf header = Unpooled.buffer();
            header.writeShort(ProtocolConstants.MAGIC)
                    .writeByte(ProtocolConstants.VERSION)
                    .writeByte(MessageType.REQUEST.code())
                    .writeByte(1)
                    .writeByte(0)
                    .writeByte(0)
                    .writeByte(0)
                    .writeLong(1)
                    .writeInt(1000)
                    .writeInt(100 * 1024 * 1024);
            byte[] bytes = new byte[header.readableBytes()];
            header.readBytes(bytes);
            header.release();
            bad.getOutputStream().write(bytes);
            bad.getOutputStream().flush();
            assertThat(readUntilClosed(bad)).isEmpty();
        }
        assertThat(service.echo("fine")).isEqualTo("fine");
    }

    @Test
    void publicMethodOutsideTheInterfaceCannotBeCalled() throws Exception {
        try (Socket raw = connect()) {
            raw.getOutputStream().write(request(42, TypesService.class.getName(), "secret()"));
            raw.getOutputStream().flush();
            DataInputStream in = new DataInputStream(raw.getInputStream());
            byte[] header = new byte[ProtocolConstants.HEADER_LENGTH];
            in.readFully(header);
            ByteBuf h = Unpooled.wrappedBuffer(header);
            assertThat(h.getByte(ProtocolConstants.OFFSET_TYPE)).isEqualTo(MessageType.RESPONSE.code());
            assertThat(h.getLong(ProtocolConstants.OFFSET_REQUEST_ID)).isEqualTo(42);
            assertThat(h.getByte(ProtocolConstants.OFFSET_STATUS)).isEqualTo(RpcStatus.METHOD_NOT_FOUND.code());
            byte[] body = new byte[h.getInt(ProtocolConstants.OFFSET_BODY_LENGTH)];
            in.readFully(body);
            assertThat(new String(body, StandardCharsets.UTF_8)).contains("has no method secret()");

            // Same connection, unknown service: answered, connection kept.
            raw.getOutputStream().write(request(43, "com.example.Nope", "x()"));
            in.readFully(header);
            assertThat(Unpooled.wrappedBuffer(header).getByte(ProtocolConstants.OFFSET_STATUS))
                    .isEqualTo(RpcStatus.SERVICE_NOT_FOUND.code());
        }
    }

    @Test
    void silentPeerIsDetectedByHeartbeatAndClosed() throws Exception {
        try (Socket silent = connect()) {
            InputStream in = silent.getInputStream();
            // The server pings an idle connection; a peer that never answers is closed after
            // three intervals. readAllBytes returns once the server has closed it.
            byte[] got = in.readAllBytes();
            assertThat(got.length)
                    .as("pings received before the close")
                    .isGreaterThanOrEqualTo(ProtocolConstants.HEADER_LENGTH);
            assertThat(got[3]).isEqualTo(MessageType.HEARTBEAT_PING.code());
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> server.connectionCount() <= 1);
    }

    private static byte[] request(long id, String service, String signature) {
        byte[] key = service.getBytes(StandardCharsets.UTF_8);
        byte[] sig = signature.getBytes(StandardCharsets.UTF_8);
        ByteBuf b = Unpooled.buffer();
        b.writeShort(ProtocolConstants.MAGIC)
                .writeByte(ProtocolConstants.VERSION)
                .writeByte(MessageType.REQUEST.code())
                .writeByte(1)
                .writeByte(0)
                .writeByte(0)
                .writeByte(0)
                .writeLong(id)
                .writeInt(5000)
                .writeInt(2 + key.length + 2 + sig.length + 2)
                .writeShort(key.length)
                .writeBytes(key)
                .writeShort(sig.length)
                .writeBytes(sig)
                .writeShort(0);
        byte[] out = new byte[b.readableBytes()];
        b.readBytes(out);
        b.release();
        return out;
    }
}
