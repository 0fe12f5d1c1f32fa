package io.xrpc.testing;

import io.xrpc.serialize.Serializer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;

/** A serializer under a name and id of its own that does what {@code delegate} does; tests override what they change. */
public class ForwardingSerializer implements Serializer {
    private final String name;
    private final byte id;
    protected final Serializer delegate;

    public ForwardingSerializer(String name, byte id, Serializer delegate) {
        this.name = name;
        this.id = id;
        this.delegate = delegate;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public byte id() {
        return id;
    }

    @Override
    public void writeArguments(Object[] arguments, OutputStream out) throws IOException {
        delegate.writeArguments(arguments, out);
    }

    @Override
    public Object[] readArguments(InputStream in, Class<?>[] types, long deadlineNanos) throws IOException {
        return delegate.readArguments(in, types, deadlineNanos);
    }

    @Override
    public void writeResult(Object value, OutputStream out) throws IOException {
        delegate.writeResult(value, out);
    }

    @Override
    public Object readResult(InputStream in, Class<?> type, long deadlineNanos) throws IOException {
        return delegate.readResult(in, type, deadlineNanos);
    }
}
