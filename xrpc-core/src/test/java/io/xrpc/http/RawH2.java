package io.xrpc.http;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/** HTTP/2 frames written by hand, as a hostile client writes them: no library between us and the bytes. */
final class RawH2 {
    static final int DATA = 0x0;
    static final int HEADERS = 0x1;
    static final int RST_STREAM = 0x3;
    static final int SETTINGS = 0x4;
    static final int PING = 0x6;
    static final int GOAWAY = 0x7;
    static final int CONTINUATION = 0x9;

    private final Socket socket;
    private final OutputStream out;

    RawH2(Socket socket) throws IOException {
        this.socket = socket;
        this.out = socket.getOutputStream();
    }

    /** The connection preface and an empty SETTINGS frame. */
    void preface() throws IOException {
        out.write("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        frame(SETTINGS, 0, 0, new byte[0]);
    }

    void headers(int stream, String path, boolean endStream) throws IOException {
        headers(stream, path, endStream, true);
    }

    void headers(int stream, String path, boolean endStream, boolean endHeaders) throws IOException {
        ByteArrayOutputStream block = new ByteArrayOutputStream();
        block.writeBytes(literal(":method", "POST"));
        block.writeBytes(literal(":scheme", "http"));
        block.writeBytes(literal(":path", path));
        block.writeBytes(literal(":authority", "x"));
        block.writeBytes(literal("content-type", "application/json"));
        frame(HEADERS, (endStream ? 0x1 : 0) | (endHeaders ? 0x4 : 0), stream, block.toByteArray());
    }

    void continuation(int stream, byte[] block, boolean endHeaders) throws IOException {
        frame(CONTINUATION, endHeaders ? 0x4 : 0, stream, block);
    }

    void data(int stream, byte[] body, boolean endStream) throws IOException {
        frame(DATA, endStream ? 0x1 : 0, stream, body);
    }

    void reset(int stream) throws IOException {
        frame(RST_STREAM, 0, stream, new byte[] {0, 0, 0, 8}); // CANCEL
    }

    void ping(long payload) throws IOException {
        byte[] p = new byte[8];
        for (int i = 0; i < 8; i++) {
            p[i] = (byte) (payload >>> (56 - 8 * i));
        }
        frame(PING, 0, 0, p);
    }

    /** A header as an HPACK literal without indexing, new name, no Huffman; name and value under 127 bytes. */
    static byte[] literal(String name, String value) {
        byte[] n = name.getBytes(StandardCharsets.US_ASCII);
        byte[] v = value.getBytes(StandardCharsets.US_ASCII);
        if (n.length > 126 || v.length > 126) {
            throw new IllegalArgumentException("kept under 127 bytes: one length byte");
        }
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.write(0);
        b.write(n.length);
        b.writeBytes(n);
        b.write(v.length);
        b.writeBytes(v);
        return b.toByteArray();
    }

    /**
     * An HPACK bomb: one header of {@code valueBytes} added to the dynamic table, then referred to
     * {@code times} more by its one-byte index, so that a small block decodes to a huge header list.
     */
    void hpackBomb(int stream, String path, int valueBytes, int times) throws IOException {
        ByteArrayOutputStream block = new ByteArrayOutputStream();
        block.writeBytes(literal(":method", "POST"));
        block.writeBytes(literal(":scheme", "http"));
        block.writeBytes(literal(":path", path));
        block.writeBytes(literal(":authority", "x"));
        block.write(0x40); // literal with incremental indexing, new name
        hpackString(block, "x-bomb".getBytes(StandardCharsets.US_ASCII));
        hpackString(block, "b".repeat(valueBytes).getBytes(StandardCharsets.US_ASCII));
        for (int i = 0; i < times; i++) {
            block.write(0x80 | 62); // the dynamic table's first entry: x-bomb again
        }
        frame(HEADERS, 0x1 | 0x4, stream, block.toByteArray());
    }

    private static void hpackString(ByteArrayOutputStream b, byte[] s) {
        int n = s.length;
        if (n < 127) {
            b.write(n);
        } else {
            b.write(127);
            n -= 127;
            while (n >= 128) {
                b.write((n & 0x7f) | 0x80);
                n >>>= 7;
            }
            b.write(n);
        }
        b.writeBytes(s);
    }

    private void frame(int type, int flags, int stream, byte[] payload) throws IOException {
        byte[] h = {
            (byte) (payload.length >>> 16),
            (byte) (payload.length >>> 8),
            (byte) payload.length,
            (byte) type,
            (byte) flags,
            (byte) (stream >>> 24),
            (byte) (stream >>> 16),
            (byte) (stream >>> 8),
            (byte) stream
        };
        out.write(h);
        out.write(payload);
        out.flush();
    }

    /** Reads the server's frames until it resets {@code stream} (true) or closes (false). */
    boolean awaitReset(int stream) throws IOException {
        DataInputStream in = new DataInputStream(socket.getInputStream());
        try {
            for (; ; ) {
                int length = (in.readUnsignedByte() << 16) | (in.readUnsignedByte() << 8) | in.readUnsignedByte();
                int type = in.readUnsignedByte();
                in.readUnsignedByte();
                int id = in.readInt() & 0x7fffffff;
                in.skipNBytes(length);
                if (type == RST_STREAM && id == stream) {
                    return true;
                }
            }
        } catch (EOFException closed) {
            return false;
        }
    }

    /**
     * What the server did with {@code stream}: "reset" (RST_STREAM), "answered" (HEADERS on it),
     * "goaway" (a GOAWAY first) or "closed" (the connection ended first).
     */
    String outcome(int stream) throws IOException {
        DataInputStream in = new DataInputStream(socket.getInputStream());
        try {
            for (; ; ) {
                int length = (in.readUnsignedByte() << 16) | (in.readUnsignedByte() << 8) | in.readUnsignedByte();
                int type = in.readUnsignedByte();
                in.readUnsignedByte();
                int id = in.readInt() & 0x7fffffff;
                in.skipNBytes(length);
                if (type == RST_STREAM && id == stream) {
                    return "reset";
                }
                if (type == HEADERS && id == stream) {
                    return "answered";
                }
                if (type == GOAWAY) {
                    return "goaway";
                }
            }
        } catch (EOFException | java.net.SocketException closed) {
            return "closed";
        }
    }

    /** Whether the server's bytes {@code all} (from the start of the connection) hold a GOAWAY frame. */
    static boolean hasGoAway(byte[] all) {
        int at = 0;
        while (at + 9 <= all.length) {
            int length = ((all[at] & 0xff) << 16) | ((all[at + 1] & 0xff) << 8) | (all[at + 2] & 0xff);
            if ((all[at + 3] & 0xff) == GOAWAY) {
                return true;
            }
            at += 9 + length;
        }
        return false;
    }
}
