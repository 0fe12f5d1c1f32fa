package io.xrpc.testing;

import io.xrpc.protocol.MessageType;
import io.xrpc.protocol.ProtocolConstants;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/** A client that speaks the wire protocol by hand over a plain socket: what an attacker would use. */
public final class RawPeer implements AutoCloseable {
    public final Socket socket;
    private final DataInputStream in;

    /** One frame read back. */
    public record Reply(byte type, byte status, long requestId, byte[] body) {
        /** The message of an error body (class, message, stack as long strings). */
        public String message() {
            ByteBuffer b = ByteBuffer.wrap(body);
            skipLongString(b);
            return readLongString(b);
        }

        private static void skipLongString(ByteBuffer b) {
            int n = b.getInt();
            if (n > 0) {
                b.position(b.position() + n);
            }
        }

        private static String readLongString(ByteBuffer b) {
            int n = b.getInt();
            if (n < 0) {
                return null;
            }
            byte[] s = new byte[n];
            b.get(s);
            return new String(s, StandardCharsets.UTF_8);
        }
    }

    public RawPeer(int port) throws IOException {
        this(port, -1);
    }

    /** @param receiveBuffer SO_RCVBUF to ask for before connecting, or -1 for the default */
    public RawPeer(int port, int receiveBuffer) throws IOException {
        socket = new Socket();
        if (receiveBuffer > 0) {
            socket.setReceiveBufferSize(receiveBuffer);
        }
        socket.setSoTimeout(20_000);
        socket.connect(new InetSocketAddress("127.0.0.1", port), 5000);
        in = new DataInputStream(socket.getInputStream());
    }

    /** The provider's side of a connection a client opened to a listener of the test's: a provider by hand. */
    public RawPeer(Socket accepted) throws IOException {
        socket = accepted;
        socket.setSoTimeout(20_000);
        in = new DataInputStream(socket.getInputStream());
    }

    /** The bytes of a request frame: head (service, method, no attachments) and then {@code arguments}. */
    public static byte[] request(
            long id, byte serializer, int budgetMillis, String service, String signature, byte[] arguments) {
        return frame(MessageType.REQUEST, serializer, id, budgetMillis, requestBody(service, signature, arguments));
    }

    /** A request's body: its head (service, method, no attachments), then {@code arguments} as they are. */
    public static byte[] requestBody(String service, String signature, byte[] arguments) {
        return requestBody(service, signature, Map.of(), arguments);
    }

    /**
     * The bytes of a stream call's request: as {@link #request}, with the attachment that says the
     * caller speaks streams.
     */
    public static byte[] streamRequest(
            long id, byte serializer, int budgetMillis, String service, String signature, byte[] arguments) {
        return frame(
                MessageType.REQUEST,
                serializer,
                id,
                budgetMillis,
                requestBody(service, signature, Map.of(ProtocolConstants.STREAM_ATTACHMENT, "1"), arguments));
    }

    /** A request's body: its head (service, method, {@code attachments}), then {@code arguments} as they are. */
    public static byte[] requestBody(
            String service, String signature, Map<String, String> attachments, byte[] arguments) {
        try {
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            DataOutputStream b = new DataOutputStream(body);
            byte[] key = service.getBytes(StandardCharsets.UTF_8);
            byte[] sig = signature.getBytes(StandardCharsets.UTF_8);
            b.writeShort(key.length);
            b.write(key);
            b.writeShort(sig.length);
            b.write(sig);
            b.writeShort(attachments.size());
            for (Map.Entry<String, String> a : attachments.entrySet()) {
                writeShortString(b, a.getKey());
                writeShortString(b, a.getValue());
            }
            b.write(arguments);
            return body.toByteArray();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void writeShortString(DataOutputStream out, String s) throws IOException {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        out.writeShort(b.length);
        out.write(b);
    }

    /** A CREDIT of stream call {@code id}. */
    public static byte[] credit(long id, int messages, int bytes) {
        return frame(
                MessageType.CREDIT,
                (byte) 0,
                id,
                0,
                ByteBuffer.allocate(8).putInt(messages).putInt(bytes).array());
    }

    public static byte[] frame(MessageType type, byte serializer, long id, int budgetMillis, byte[] body) {
        return frame(type, serializer, (byte) 0, id, budgetMillis, body);
    }

    /** A frame of {@code status}: what a provider by hand answers. */
    public static byte[] frame(MessageType type, byte serializer, byte status, long id, int budgetMillis, byte[] body) {
        try {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            DataOutputStream f = new DataOutputStream(out);
            f.writeShort(ProtocolConstants.MAGIC);
            f.writeByte(ProtocolConstants.VERSION);
            f.writeByte(type.code());
            f.writeByte(serializer);
            f.writeByte(0);
            f.writeByte(status);
            f.writeByte(0);
            f.writeLong(id);
            f.writeInt(budgetMillis);
            f.writeInt(body.length);
            f.write(body);
            return out.toByteArray();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    public void send(byte[] bytes) throws IOException {
        socket.getOutputStream().write(bytes);
        socket.getOutputStream().flush();
    }

    /** The next frame, skipping heartbeat pings. */
    public Reply read() throws IOException {
        for (; ; ) {
            byte[] header = new byte[ProtocolConstants.HEADER_LENGTH];
            in.readFully(header);
            ByteBuffer h = ByteBuffer.wrap(header);
            byte[] body = new byte[h.getInt(ProtocolConstants.OFFSET_BODY_LENGTH)];
            in.readFully(body);
            byte type = h.get(ProtocolConstants.OFFSET_TYPE);
            if (type == MessageType.HEARTBEAT_PING.code()) {
                continue;
            }
            return new Reply(
                    type, h.get(ProtocolConstants.OFFSET_STATUS), h.getLong(ProtocolConstants.OFFSET_REQUEST_ID), body);
        }
    }

    /** Reads until the peer closes; returns what came. */
    public byte[] readUntilClosed() throws IOException {
        return in.readAllBytes();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
