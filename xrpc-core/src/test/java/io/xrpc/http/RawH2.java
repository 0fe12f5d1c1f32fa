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

    /** A SETTINGS frame with one setting (id, value), as a peer changes its windows. */
    void setting(int id, int value) throws IOException {
        frame(SETTINGS, 0, 0, new byte[] {
            (byte) (id >>> 8),
            (byte) id,
            (byte) (value >>> 24),
            (byte) (value >>> 16),
            (byte) (value >>> 8),
            (byte) value
        });
    }

    void headers(int stream, String path, boolean endStream) throws IOException {
        headers(stream, path, endStream, true);
    }

    void headers(int stream, String path, boolean endStream, boolean endHeaders, byte[]... more) throws IOException {
        headers(stream, path, "application/json", endStream, endHeaders, more);
    }

    void headers(int stream, String path, String contentType, boolean endStream, boolean endHeaders, byte[]... more)
            throws IOException {
        ByteArrayOutputStream block = new ByteArrayOutputStream();
        block.writeBytes(literal(":method", "POST"));
        block.writeBytes(literal(":scheme", "http"));
        block.writeBytes(literal(":path", path));
        block.writeBytes(literal(":authority", "x"));
        block.writeBytes(literal("content-type", contentType));
        for (byte[] m : more) {
            block.writeBytes(m);
        }
        frame(HEADERS, (endStream ? 0x1 : 0) | (endHeaders ? 0x4 : 0), stream, block.toByteArray());
    }

    void continuation(int stream, byte[] block, boolean endHeaders) throws IOException {
        frame(CONTINUATION, endHeaders ? 0x4 : 0, stream, block);
    }

    /** DATA frames of at most 16 KiB (the default SETTINGS_MAX_FRAME_SIZE), the last ending the stream if asked. */
    void data(int stream, byte[] body, boolean endStream) throws IOException {
        int at = 0;
        do {
            int n = Math.min(16 * 1024, body.length - at);
            byte[] part = java.util.Arrays.copyOfRange(body, at, at + n);
            at += n;
            frame(DATA, endStream && at == body.length ? 0x1 : 0, stream, part);
        } while (at < body.length);
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

    /** One frame the server sent. */
    record Frame(int type, int stream, byte[] payload) {}

    /** The server's next frame, or null once it closed the connection. */
    Frame next() throws IOException {
        DataInputStream in = new DataInputStream(socket.getInputStream());
        try {
            int length = (in.readUnsignedByte() << 16) | (in.readUnsignedByte() << 8) | in.readUnsignedByte();
            int type = in.readUnsignedByte();
            in.readUnsignedByte(); // flags
            int id = in.readInt() & 0x7fffffff;
            return new Frame(type, id, in.readNBytes(length));
        } catch (EOFException | java.net.SocketException closed) {
            return null;
        }
    }

    /** Reads the server's frames until it resets {@code stream} (true) or closes (false). */
    boolean awaitReset(int stream) throws IOException {
        return "reset".equals(outcome(stream));
    }

    /**
     * What the server did with {@code stream}: "reset" (RST_STREAM), "answered" (HEADERS on it),
     * "goaway" (a GOAWAY first) or "closed" (the connection ended first).
     */
    String outcome(int stream) throws IOException {
        for (Frame f; (f = next()) != null; ) {
            if (f.type() == RST_STREAM && f.stream() == stream) {
                return "reset";
            }
            if (f.type() == HEADERS && f.stream() == stream) {
                return "answered";
            }
            if (f.type() == GOAWAY) {
                return "goaway";
            }
        }
        return "closed";
    }

    /**
     * The :status of the server's answer on {@code stream}, read from its HEADERS: the first header
     * of a Netty server's block is :status as an indexed field (8 = 200, 13 = 404, ...) or a literal
     * with an indexed name; -1 when the stream was reset or the connection closed first.
     */
    int status(int stream) throws IOException {
        for (Frame f; (f = next()) != null; ) {
            if (f.stream() == stream && f.type() == RST_STREAM) {
                return -1;
            }
            if (f.stream() == stream && f.type() == HEADERS) {
                return decodeStatus(f.payload());
            }
        }
        return -1;
    }

    /**
     * The :status of the first answer on any stream (its HEADERS, read as {@link #status(int)} reads
     * them: later answers may name a status by the encoder's dynamic table, which is not kept here).
     */
    int firstStatus() throws IOException {
        for (Frame f; (f = next()) != null; ) {
            if (f.type() == HEADERS) {
                return decodeStatus(f.payload());
            }
        }
        return -1;
    }

    private static int decodeStatus(byte[] block) {
        int b = block[0] & 0xff;
        int[] indexed = {0, 0, 0, 0, 0, 0, 0, 0, 200, 204, 206, 304, 400, 404, 500};
        if ((b & 0x80) != 0 && (b & 0x7f) < indexed.length && indexed[b & 0x7f] != 0) {
            return indexed[b & 0x7f];
        }
        // A literal whose name is an index (:status is 8-14) and whose value is 3 plain ASCII digits,
        // or Huffman-coded: then read by decoding Huffman is not done here; plain is what Netty sends
        // for statuses outside the static table unless its Huffman is shorter.
        int at = 1;
        int len = block[at] & 0x7f;
        boolean huffman = (block[at] & 0x80) != 0;
        if (huffman) {
            return huffmanStatus(block, at + 1, len);
        }
        return Integer.parseInt(new String(block, at + 1, len, StandardCharsets.US_ASCII));
    }

    /** Three digits in HPACK's Huffman code: '0'-'2' are 5 bits (0x0-0x2), '3'-'9' 6 bits (0x19-0x1f). */
    private static int huffmanStatus(byte[] block, int from, int len) {
        long bits = 0;
        int n = 0;
        for (int i = 0; i < len; i++) {
            bits = (bits << 8) | (block[from + i] & 0xff);
            n += 8;
        }
        StringBuilder digits = new StringBuilder();
        int pos = n;
        while (digits.length() < 3) {
            int five = (int) ((bits >>> (pos - 5)) & 0x1f);
            if (five <= 2) {
                digits.append((char) ('0' + five));
                pos -= 5;
                continue;
            }
            int six = (int) ((bits >>> (pos - 6)) & 0x3f);
            digits.append((char) ('3' + six - 0x19));
            pos -= 6;
        }
        return Integer.parseInt(digits.toString());
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
