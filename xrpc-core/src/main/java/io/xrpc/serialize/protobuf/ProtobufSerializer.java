package io.xrpc.serialize.protobuf;

import io.xrpc.serialize.ClassAllowList;
import io.xrpc.serialize.ReadGuard;
import io.xrpc.serialize.ReadLimits;
import io.xrpc.serialize.SerializationException;
import io.xrpc.serialize.Serializer;
import io.xrpc.serialize.WriteDepth;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.Type;
import java.nio.ByteBuffer;

/**
 * {@code protobuf} (wire id 6): arguments and results as protocol buffers, laid out as the contract
 * XRpc derives from the service interface ({@link ProtoContract}) says, which is what gRPC callers
 * send and read. A method taking one message (an application record or class) takes it as the
 * request; any other list of parameters travels as a message whose field {@code i + 1} is parameter
 * {@code i}. A result that is a message travels as itself; any other as field 1 of a message; a
 * {@code null} result is an empty body (the message's defaults).
 *
 * <p>Nothing on the wire names a class: what is built is what the method declares (and the
 * {@link ClassAllowList} allows). Lengths are checked against the bytes of their enclosing message
 * before anything is allocated; values read and fields skipped count against {@link ReadLimits},
 * nested messages against its depth; the deadline is looked at as values are counted.
 */
final class ProtobufSerializer implements Serializer {
    static final String NAME = "protobuf";
    static final byte ID = 6;

    private final ProtoTypes types;
    private final ReadLimits limits;
    private final ThreadLocal<ProtoWriter> writers = ThreadLocal.withInitial(ProtoWriter::new);

    ProtobufSerializer(ClassAllowList allowList, ReadLimits limits) {
        this.types = new ProtoTypes(allowList, limits);
        this.limits = limits;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public byte id() {
        return ID;
    }

    @Override
    public String cannotCarry(Class<?> type) {
        if (!ProtoTypes.isMessage(type)) {
            return null; // values, collections and polymorphic types are judged per method by the contract
        }
        return types.message(type).broken;
    }

    private ProtoWriter writer() {
        ProtoWriter w = writers.get();
        w.reset();
        return w;
    }

    private static void flush(ProtoWriter w, OutputStream out) throws IOException {
        out.write(w.array(), 0, w.length());
    }

    @Override
    public void writeArguments(Object[] arguments, OutputStream out) throws IOException {
        ProtoWriter w = writer();
        try {
            if (arguments.length == 1 && arguments[0] != null && ProtoTypes.isMessage(arguments[0].getClass())) {
                types.message(arguments[0].getClass()).writeTop(w, arguments[0], 0);
            } else {
                for (int i = 0; i < arguments.length; i++) {
                    writeRuntime(w, i + 1, arguments[i]);
                }
            }
        } catch (RuntimeException | StackOverflowError e) {
            throw WriteDepth.failure(NAME, e);
        }
        flush(w, out);
    }

    private void writeRuntime(ProtoWriter w, int number, Object v) {
        if (v == null) {
            return;
        }
        ProtoTypes.Field f = types.runtimeField(number, v);
        if (f != null) {
            f.write(w, v, 0);
        }
    }

    @Override
    public void writeResult(Object value, OutputStream out) throws IOException {
        ProtoWriter w = writer();
        try {
            if (ProtoTypes.isMessage(value.getClass())) {
                types.message(value.getClass()).writeTop(w, value, 0);
            } else {
                writeRuntime(w, 1, value);
            }
        } catch (RuntimeException | StackOverflowError e) {
            throw WriteDepth.failure(NAME, e);
        }
        flush(w, out);
    }

    @Override
    public void writeMessage(Object value, Class<?> declaredType, OutputStream out) throws IOException {
        writeResult(value, out);
    }

    private static ByteBuffer all(InputStream in) throws IOException {
        return ByteBuffer.wrap(in.readNBytes(in.available()));
    }

    @Override
    public Object[] readArguments(InputStream in, Class<?>[] parameterTypes, long deadlineNanos) throws IOException {
        return readArguments(all(in), parameterTypes, parameterTypes, deadlineNanos);
    }

    @Override
    public Object[] readArguments(ByteBuffer in, Class<?>[] parameterTypes, long deadlineNanos) throws IOException {
        return readArguments(in, parameterTypes, parameterTypes, deadlineNanos);
    }

    @Override
    public Object[] readArguments(ByteBuffer in, Class<?>[] parameterTypes, Type[] genericTypes, long deadlineNanos)
            throws IOException {
        ProtoReader r = reader(in, deadlineNanos);
        try {
            Object[] values;
            if (parameterTypes.length == 1 && ProtoTypes.isMessage(parameterTypes[0])) {
                values = new Object[] {types.messageOf(genericTypes[0]).readTop(r)};
            } else {
                values = types.arguments(genericTypes, null).readValues(r);
            }
            r.finish();
            return values;
        } catch (ProtoTypes.Unsupported u) {
            throw new SerializationException("protobuf cannot carry " + u.getMessage());
        } catch (IOException | RuntimeException e) {
            throw ReadGuard.failure("protobuf arguments", e);
        }
    }

    @Override
    public Object readResult(InputStream in, Class<?> type, long deadlineNanos) throws IOException {
        return readResult(all(in), type, type, deadlineNanos);
    }

    @Override
    public Object readResult(ByteBuffer in, Class<?> type, long deadlineNanos) throws IOException {
        return readResult(in, type, type, deadlineNanos);
    }

    @Override
    public Object readResult(ByteBuffer in, Class<?> type, Type genericType, long deadlineNanos) throws IOException {
        ProtoReader r = reader(in, deadlineNanos);
        try {
            Object value;
            if (ProtoTypes.isMessage(type)) {
                value = types.messageOf(genericType).readTop(r);
            } else {
                value = types.arguments(new Type[] {genericType}, null).readValues(r)[0];
            }
            r.finish();
            return value;
        } catch (ProtoTypes.Unsupported u) {
            throw new SerializationException("protobuf cannot carry " + u.getMessage());
        } catch (IOException | RuntimeException e) {
            throw ReadGuard.failure("a protobuf result", e);
        }
    }

    @Override
    public Object readMessage(ByteBuffer in, Class<?> declaredType, Type genericType, long deadlineNanos)
            throws IOException {
        return readResult(in, declaredType, genericType, deadlineNanos);
    }

    private ProtoReader reader(ByteBuffer in, long deadlineNanos) {
        ReadGuard guard = new ReadGuard(limits);
        guard.begin(deadlineNanos);
        return new ProtoReader(in, guard);
    }
}
