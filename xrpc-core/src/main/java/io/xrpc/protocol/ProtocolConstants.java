package io.xrpc.protocol;

/**
 * The XRpc wire format, version 2. Every frame is a 24-byte header followed by a body; all
 * integers are big-endian. {@code docs/PROTOCOL.md} describes the bodies.
 *
 * <pre>
 *  0      1      2      3      4      5      6      7
 * +------+------+------+------+------+------+------+------+
 * |    magic    | ver  | type | ser  | comp |status|flags |
 * +------+------+------+------+------+------+------+------+
 * |                    request id (int64)                 |
 * +------+------+------+------+------+------+------+------+
 * |   budget ms (int32)       |   body length (int32)     |
 * +------+------+------+------+------+------+------+------+
 * |                  body (body length bytes) ...
 * </pre>
 *
 * <ul>
 *   <li><b>magic</b> {@code 0x5852} ("XR"): checked first, so a stray client is refused at once.</li>
 *   <li><b>ver</b> protocol version: {@link #VERSION} on the wire, {@link #MIN_VERSION} and up read.</li>
 *   <li><b>type</b> {@link MessageType} code.</li>
 *   <li><b>ser</b> serializer id of the body; a response uses its request's.</li>
 *   <li><b>comp</b> compressor id the sender prefers; a response uses its request's.</li>
 *   <li><b>status</b> {@link io.xrpc.common.RpcStatus} code in responses, 0 otherwise.</li>
 *   <li><b>flags</b> bit 0 ({@link #FLAG_COMPRESSED}): the body is compressed with {@code comp};
 *       bit 1 ({@link #FLAG_TIMESTAMPED}): the body starts with the sender's clock; other bits are
 *       reserved and must be 0.</li>
 *   <li><b>request id</b> pairs a response with its request on a multiplexed connection.</li>
 *   <li><b>budget ms</b> in a request, the milliseconds left before the caller gives up
 *       (relative, so clock skew between hosts does not matter); 0 elsewhere.</li>
 *   <li><b>body length</b> bytes that follow, at most the receiver's maximum frame length.</li>
 * </ul>
 */
public final class ProtocolConstants {
    public static final short MAGIC = 0x5852;
    /**
     * The version this side writes. Version 2 added the clock stamp ({@link #FLAG_TIMESTAMPED}); a
     * receiver reads versions {@link #MIN_VERSION} to this. A version-1 peer refuses version-2
     * frames, naming the version: upgrade providers before their consumers.
     */
    public static final byte VERSION = 2;
    /** The oldest version a receiver reads. */
    public static final byte MIN_VERSION = 1;

    public static final int HEADER_LENGTH = 24;

    public static final int OFFSET_MAGIC = 0;
    public static final int OFFSET_VERSION = 2;
    public static final int OFFSET_TYPE = 3;
    public static final int OFFSET_SERIALIZER = 4;
    public static final int OFFSET_COMPRESSOR = 5;
    public static final int OFFSET_STATUS = 6;
    public static final int OFFSET_FLAGS = 7;
    public static final int OFFSET_REQUEST_ID = 8;
    public static final int OFFSET_BUDGET = 16;
    public static final int OFFSET_BODY_LENGTH = 20;

    /** Flags bit: the body is compressed with the header's compressor. */
    public static final int FLAG_COMPRESSED = 1;

    /**
     * Flags bit: the body starts with {@link #TIMESTAMP_LENGTH} bytes, the sender's clock in
     * milliseconds (uint32, an origin of the sender's own), never compressed and counted in the
     * body length. Clients stamp requests and pings; a server compares the stamps of one
     * connection to see how long a request waited before it was read.
     */
    public static final int FLAG_TIMESTAMPED = 2;

    /** Length of the clock stamp of a {@link #FLAG_TIMESTAMPED} frame. */
    public static final int TIMESTAMP_LENGTH = 4;

    /** The flag bits defined; a frame with any other set is refused. */
    public static final int KNOWN_FLAGS = FLAG_COMPRESSED | FLAG_TIMESTAMPED;

    /** Smallest frame limit a side may set (16 KiB): every error answer fits in it. */
    public static final int MIN_FRAME_LENGTH = 16 * 1024;

    /** Default limit of one frame's body, and of a body after decompression: 8 MiB. */
    public static final int DEFAULT_MAX_FRAME_LENGTH = 8 * 1024 * 1024;

    /**
     * Messages the provider of a stream call may send before the caller grants any: what the
     * stream's request grants by being sent (with {@link #INITIAL_STREAM_BYTES}).
     */
    public static final int INITIAL_STREAM_MESSAGES = 1024;

    /** Bytes of messages the provider of a stream call may send before the caller grants any. */
    public static final int INITIAL_STREAM_BYTES = 256 * 1024;

    /**
     * The attachment a stream call's request carries ({@code "1"}): the caller takes a stream. A
     * provider answers a stream method's request without it as a call of one answer, refused, so
     * that a caller from before streams is never sent a frame it does not know.
     */
    public static final String STREAM_ATTACHMENT = "xrpc-stream";

    /** Default low water mark of a connection's output (server and client): 512 KiB. */
    public static final int DEFAULT_WRITE_BUFFER_LOW = 512 * 1024;

    /** Default high water mark of a connection's output (server and client): 1 MiB. */
    public static final int DEFAULT_WRITE_BUFFER_HIGH = 1024 * 1024;

    private ProtocolConstants() {}
}
