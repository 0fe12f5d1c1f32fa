package io.xrpc.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder;
import io.netty.handler.codec.http2.Http2Headers;
import io.xrpc.grpc.Catalog;
import io.xrpc.server.RpcServer;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * gRPC requests no gRPC library would send, as raw HTTP/2 frames over a real socket: each is
 * answered on its own stream with a status that names what was wrong, and the connection serves on.
 */
@Timeout(60)
class GrpcRawTest {
    static RpcServer server;

    @BeforeAll
    static void start() {
        server = RpcServer.builder()
                .host("127.0.0.1")
                .service(Catalog.class, new io.xrpc.grpc.CatalogImpl())
                .frameTimeout(java.time.Duration.ofSeconds(1))
                .build()
                .start();
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    /** The headers the server sent on {@code stream} until it ended it: each block decoded in order, as HPACK needs. */
    static List<Http2Headers> answer(RawH2 h2, DefaultHttp2HeadersDecoder decoder, int stream) throws Exception {
        List<Http2Headers> blocks = new ArrayList<>();
        for (RawH2.Frame f; (f = h2.next()) != null; ) {
            if (f.type() == RawH2.HEADERS) {
                Http2Headers h = decoder.decodeHeaders(f.stream(), Unpooled.wrappedBuffer(f.payload()));
                if (f.stream() == stream) {
                    blocks.add(h);
                    if (h.contains("grpc-status")) {
                        return blocks;
                    }
                }
            }
        }
        return blocks;
    }

    /** A raw HTTP/2 connection to the server, its preface sent, and the HPACK table of its answers. */
    record Peer(Socket socket, RawH2 h2, DefaultHttp2HeadersDecoder hpack) implements AutoCloseable {
        static Peer open() throws Exception {
            Socket s = new Socket("127.0.0.1", server.endpoint().port());
            s.setSoTimeout(20_000);
            RawH2 h2 = new RawH2(s);
            h2.preface();
            return new Peer(s, h2, new DefaultHttp2HeadersDecoder(false));
        }

        List<Http2Headers> answer(int stream) throws Exception {
            return GrpcRawTest.answer(h2, hpack, stream);
        }

        @Override
        public void close() throws Exception {
            socket.close();
        }
    }

    static String status(List<Http2Headers> blocks) {
        Http2Headers last = blocks.get(blocks.size() - 1);
        return last.get("grpc-status") + " " + last.get("grpc-message");
    }

    static final String GET = "/" + Catalog.class.getName() + "/get";
    static final String COUNT = "/" + Catalog.class.getName() + "/count";

    @Test
    void aPrefixThatClaimsMoreThanTheBodyIsInvalidArgumentAndTheConnectionServesOn() throws Exception {
        try (Peer p = Peer.open()) {
            RawH2 h2 = p.h2();
            h2.headers(1, GET, "application/grpc", false, true);
            h2.data(1, new byte[] {0, 0, 0, 0, 100, 0x08, 0x01}, true); // claims 100, holds 2
            assertThat(status(p.answer(1))).startsWith("3 ").contains("claims 100 bytes where 2 follow");
            h2.headers(3, GET, "application/grpc", false, true);
            h2.data(3, new byte[] {0, 0, 0, 0, 2, 0x08, 0x01}, true);
            List<Http2Headers> ok = p.answer(3);
            assertThat(ok.get(0).status().toString()).isEqualTo("200");
            assertThat(status(ok)).startsWith("0 ");
        }
    }

    @Test
    void aCallerStreamThatEndsInsideAMessageIsRefusedNamingIt() throws Exception {
        try (Peer p = Peer.open()) {
            RawH2 h2 = p.h2();
            h2.headers(1, COUNT, "application/grpc", false, true);
            h2.data(1, new byte[] {0, 0, 0, 0, 50, 0x08}, true); // 1 of 50 bytes, then the end
            assertThat(status(p.answer(1))).startsWith("3 ").contains("ended inside a message");
        }
    }

    @Test
    void aCallerStreamMessageBegunAndNeverFinishedEndsTheCallAfterTheFrameTimeout() throws Exception {
        try (Peer p = Peer.open()) {
            RawH2 h2 = p.h2();
            // A long deadline, a message that claims 1,000 bytes, 10 of them, then silence: what
            // it holds must not outlive the frame timeout (1 s here), whatever the deadline.
            h2.headers(1, COUNT, "application/grpc", false, true, RawH2.literal("grpc-timeout", "60S"));
            h2.data(1, new byte[] {0, 0, 0, 3, (byte) 0xE8, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, false);
            assertThat(status(p.answer(1)))
                    .startsWith("1 ")
                    .contains("did not arrive whole within 1000 ms (frameTimeout)");
        }
    }

    @Test
    void aMessageFlagThatIsNeither0Nor1AndAnUnknownContentTypeAreNamed() throws Exception {
        try (Peer p = Peer.open()) {
            RawH2 h2 = p.h2();
            h2.headers(1, GET, "application/grpc", false, true);
            h2.data(1, new byte[] {7, 0, 0, 0, 2, 0x08, 0x01}, true);
            assertThat(status(p.answer(1))).startsWith("3 ").contains("message flag 7");
            h2.headers(3, GET, "application/grpc+json", false, true);
            h2.data(3, new byte[] {0, 0, 0, 0, 2, '{', '}'}, true);
            assertThat(status(p.answer(3))).startsWith("12 ").contains("application/grpc+json is not served");
        }
    }

    @Test
    void aUnaryRequestThatNeverEndsIsResetAfterTheFrameTimeout() throws Exception {
        try (Peer p = Peer.open()) {
            RawH2 h2 = p.h2();
            h2.headers(1, GET, "application/grpc", false, true);
            h2.data(1, new byte[] {0, 0, 0, 0, 2}, false); // the message never follows
            boolean reset = false;
            for (RawH2.Frame f; !reset && (f = h2.next()) != null; ) {
                reset = f.type() == RawH2.RST_STREAM && f.stream() == 1;
            }
            assertThat(reset).as("stream 1 reset by the server").isTrue();
        }
    }
}
