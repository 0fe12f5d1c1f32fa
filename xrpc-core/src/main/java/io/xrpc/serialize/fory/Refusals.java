package io.xrpc.serialize.fory;

import io.xrpc.serialize.ClassAllowList;
import io.xrpc.serialize.ClassNotAllowedException;
import java.nio.ByteBuffer;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.LinkedBlockingDeque;
import org.apache.fory.Fory;
import org.apache.fory.context.ReadContext;
import org.apache.fory.context.WriteContext;
import org.apache.fory.resolver.ClassResolver;
import org.apache.fory.resolver.TypeResolver;
import org.apache.fory.serializer.BufferSerializers;
import org.apache.fory.serializer.Serializer;
import org.apache.fory.serializer.collection.CollectionSerializer;
import org.apache.fory.serializer.collection.ConcurrentCollectionSerializer;
import org.apache.fory.serializer.collection.MapSerializer;

/**
 * Fory writes the classes it registers itself (about 175 JDK classes: queues, atomics,
 * {@code Pattern}, {@code URI}, exceptions, lambdas' and proxies' stand-ins) by number, and reads
 * them without asking its type checker. Each of them that the allow-list does not allow gets a
 * serializer here that refuses it, reading or writing, naming the class, before anything of it is
 * made. A Fory instance is built again when the allow-list grows ({@link ForySerializer}), so that
 * a class allowed later is carried.
 */
final class Refusals {
    private Refusals() {}

    static void install(Fory fory, ClassAllowList allowList) {
        TypeResolver resolver = fory.getTypeResolver();
        if (!(resolver instanceof ClassResolver classes)) {
            throw new IllegalStateException(
                    "fory: expected Java mode, found " + resolver.getClass().getName());
        }
        // On the default allow-list, but without a serializer of Fory's own: Fory would write it
        // field by field, its lock and conditions too. As a collection, as every other serializer does.
        if (allowList.isAllowed(LinkedBlockingDeque.class.getName())) {
            classes.registerInternalSerializer(
                    LinkedBlockingDeque.class,
                    new ConcurrentCollectionSerializer<>(resolver, LinkedBlockingDeque.class, true));
        }
        for (Class<?> c : classes.getRegisteredClasses()) {
            if (c.isPrimitive()) {
                continue;
            }
            if (allowList.isAllowed(c.getName())) {
                if (ByteBuffer.class.isAssignableFrom(c)) {
                    classes.registerInternalSerializer(c, new CopiedByteBuffer(resolver, c));
                }
                continue;
            }
            Serializer<?> refusal;
            if (Collection.class.isAssignableFrom(c)) {
                refusal = new RefusedCollection(resolver, c);
            } else if (Map.class.isAssignableFrom(c)) {
                refusal = new RefusedMap(resolver, c);
            } else {
                refusal = new Refused(fory, c);
            }
            classes.registerInternalSerializer(c, refusal);
        }
    }

    /** For {@code withSerializerFactory}: every other {@code ByteBuffer} class a payload may name gets a copy too. */
    static Serializer<?> copiedByteBuffers(TypeResolver resolver, Class<?> c) {
        return ByteBuffer.class.isAssignableFrom(c) ? new CopiedByteBuffer(resolver, c) : null;
    }

    /**
     * Fory reads a {@code ByteBuffer} as a view of the message's memory. XRpc hands Fory a frame's
     * body in place and gives it back to Netty's pool after the read, so such a view would read
     * other calls' bytes and write into pooled memory: the value read gets bytes of its own (no
     * more than the message holds), in the byte order written.
     */
    @SuppressWarnings({"rawtypes", "unchecked"})
    private static final class CopiedByteBuffer extends Serializer<ByteBuffer> {
        private final BufferSerializers.ByteBufferSerializer fory;

        CopiedByteBuffer(TypeResolver resolver, Class<?> type) {
            super(resolver.getConfig(), (Class) type);
            this.fory = new BufferSerializers.ByteBufferSerializer(resolver, (Class) type);
        }

        @Override
        public void write(WriteContext writeContext, ByteBuffer value) {
            fory.write(writeContext, value);
        }

        @Override
        public ByteBuffer read(ReadContext readContext) {
            ByteBuffer view = fory.read(readContext);
            ByteBuffer own = ByteBuffer.allocate(view.remaining());
            own.put(view.duplicate()).flip();
            return own.order(view.order());
        }
    }

    private static ClassNotAllowedException refuse(Class<?> c) {
        return new ClassNotAllowedException(c.getName());
    }

    @SuppressWarnings({"rawtypes", "unchecked"})
    private static final class Refused extends Serializer<Object> {
        Refused(Fory fory, Class<?> type) {
            super(fory.getConfig(), (Class) type);
        }

        @Override
        public void write(WriteContext writeContext, Object value) {
            throw refuse(getType());
        }

        @Override
        public Object read(ReadContext readContext) {
            throw refuse(getType());
        }
    }

    @SuppressWarnings({"rawtypes", "unchecked"})
    private static final class RefusedCollection extends CollectionSerializer<Collection> {
        RefusedCollection(TypeResolver resolver, Class<?> type) {
            super(resolver, (Class) type, true);
        }

        @Override
        public void write(WriteContext writeContext, Collection value) {
            throw refuse(getType());
        }

        @Override
        public Collection onCollectionWrite(WriteContext writeContext, Collection value) {
            throw refuse(getType());
        }

        @Override
        public Collection read(ReadContext readContext) {
            throw refuse(getType());
        }

        @Override
        public Collection newCollection(ReadContext readContext, boolean elementReadAlwaysAdvances) {
            throw refuse(getType());
        }
    }

    @SuppressWarnings({"rawtypes", "unchecked"})
    private static final class RefusedMap extends MapSerializer<Map> {
        RefusedMap(TypeResolver resolver, Class<?> type) {
            super(resolver, (Class) type, true);
        }

        @Override
        public void write(WriteContext writeContext, Map value) {
            throw refuse(getType());
        }

        @Override
        public Map onMapWrite(WriteContext writeContext, Map value) {
            throw refuse(getType());
        }

        @Override
        public Map read(ReadContext readContext) {
            throw refuse(getType());
        }

        @Override
        public Map newMap(ReadContext readContext, boolean entryReadAlwaysAdvances) {
            throw refuse(getType());
        }
    }
}
