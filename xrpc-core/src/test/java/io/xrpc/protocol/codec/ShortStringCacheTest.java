package io.xrpc.protocol.codec;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ShortStringCacheTest {

    private static ByteBuf head(String service, String signature, Map<String, String> attachments) {
        ByteBuf b = Unpooled.buffer();
        for (String s : List.of(service, signature)) {
            byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
            b.writeShort(bytes.length).writeBytes(bytes);
        }
        b.writeShort(attachments.size());
        attachments.forEach((k, v) -> {
            for (String s : List.of(k, v)) {
                byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
                b.writeShort(bytes.length).writeBytes(bytes);
            }
        });
        b.writeByte(42); // the first byte of the arguments
        return b;
    }

    @Test
    void aRepeatedNameIsTheCachedStringAndTheReaderEndsAtTheArguments() {
        ShortStringCache names = new ShortStringCache();
        ByteBuf first = head("com.acme.Inventory:1.0", "stock(java.lang.String)", Map.of());
        ByteBuf second = head("com.acme.Inventory:1.0", "stock(java.lang.String)", Map.of("k", "v"));
        try {
            RpcCodec.RequestHead a = RpcCodec.readRequestHead(first, names);
            RpcCodec.RequestHead b = RpcCodec.readRequestHead(second, names);
            assertThat(b.serviceKey()).isEqualTo("com.acme.Inventory:1.0").isSameAs(a.serviceKey());
            assertThat(b.signature()).isEqualTo("stock(java.lang.String)").isSameAs(a.signature());
            assertThat(b.attachments()).containsExactly(Map.entry("k", "v"));
            assertThat(first.readByte()).isEqualTo((byte) 42);
            assertThat(second.readByte()).isEqualTo((byte) 42);
        } finally {
            first.release();
            second.release();
        }
    }

    @Test
    void namesThatDifferInOneByteOrInLengthAreNotConfused() {
        ShortStringCache names = new ShortStringCache();
        String[] services = {"svc.A", "svc.B", "svc.AB", "svc.é", "svc.A"};
        for (String s : services) {
            ByteBuf b = head(s, "m()", Map.of());
            try {
                assertThat(RpcCodec.readRequestHead(b, names).serviceKey()).isEqualTo(s);
            } finally {
                b.release();
            }
        }
    }

    @Test
    void aPeerNamingEverNewStringsGetsThemRightAndTheCacheStaysSmall() throws Exception {
        ShortStringCache names = new ShortStringCache();
        String longName = "x".repeat(ShortStringCache.MAX_LENGTH + 1);
        for (int i = 0; i < 1000; i++) {
            String service = i % 10 == 0 ? longName : "svc" + i;
            ByteBuf b = head(service, "m" + (i % 3) + "()", Map.of());
            try {
                RpcCodec.RequestHead h = RpcCodec.readRequestHead(b, names);
                assertThat(h.serviceKey()).isEqualTo(service);
                assertThat(h.signature()).isEqualTo("m" + (i % 3) + "()");
            } finally {
                b.release();
            }
        }
        var field = ShortStringCache.class.getDeclaredField("bytes");
        field.setAccessible(true);
        for (byte[] kept : (byte[][]) field.get(names)) {
            assertThat(kept).hasSizeLessThanOrEqualTo(ShortStringCache.MAX_LENGTH); // a long name is never kept
        }
    }

    @Test
    void aLengthPastTheBodyIsRefusedBeforeAnythingIsRead() {
        ShortStringCache names = new ShortStringCache();
        ByteBuf b = Unpooled.buffer().writeShort(200).writeBytes(new byte[10]);
        try {
            assertThatThrownBy(() -> RpcCodec.readRequestHead(b, names))
                    .isInstanceOf(IndexOutOfBoundsException.class)
                    .hasMessageContaining("200 bytes with 10 left");
        } finally {
            b.release();
        }
    }
}
