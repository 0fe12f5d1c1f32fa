package io.xrpc.serialize.hessian;

import com.alibaba.com.caucho.hessian.io.Deserializer;
import com.alibaba.com.caucho.hessian.io.Hessian2Input;
import com.alibaba.com.caucho.hessian.io.Hessian2Output;
import com.alibaba.com.caucho.hessian.io.HessianProtocolException;
import com.alibaba.com.caucho.hessian.io.SerializerFactory;
import io.xrpc.serialize.ClassAllowList;
import io.xrpc.serialize.ClassNotAllowedException;
import io.xrpc.serialize.Serializer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Hessian 2 ({@link Hessian2Output}/{@link Hessian2Input}), through Apache Dubbo's maintained
 * hessian-lite, which handles {@code java.time} on current JDKs.
 *
 * <p>One {@link SerializerFactory} (thread-safe, caches per-class serializers) serves every
 * thread; the output, which holds an 8 KiB buffer and reference tables, is kept one per thread
 * and reset between uses, while each read gets a fresh input. Arguments are read with their declared parameter type, so
 * Hessian's narrowing (a {@code short} travels as an int) comes back as the right type.
 */
public final class HessianSerializer implements Serializer {
    public static final byte ID = 2;

    private final AllowListSerializerFactory factory;
    private final ThreadLocal<Hessian2Output> outputs;

    public HessianSerializer(ClassAllowList allowList) {
        this.factory = new AllowListSerializerFactory(allowList);
        this.outputs = ThreadLocal.withInitial(() -> {
            Hessian2Output o = new Hessian2Output(null);
            o.setSerializerFactory(factory);
            return o;
        });
    }

    @Override
    public String name() {
        return "hessian";
    }

    @Override
    public byte id() {
        return ID;
    }

    @Override
    public void writeArguments(Object[] arguments, OutputStream out) throws IOException {
        Hessian2Output o = outputs.get();
        o.init(out);
        try {
            for (Object a : arguments) {
                o.writeObject(a);
            }
            o.flushBuffer();
        } finally {
            o.init(null);
        }
    }

    @Override
    public Object[] readArguments(InputStream in, Class<?>[] parameterTypes) throws IOException {
        Hessian2Input i = input(in);
        Object[] args = new Object[parameterTypes.length];
        for (int n = 0; n < args.length; n++) {
            args[n] = i.readObject(parameterTypes[n]);
        }
        return args;
    }

    /**
     * A new input per message: Hessian2Input's reset keeps its read-ahead buffer, so a reused one
     * would hand bytes left over from one message (a peer's trailing data) to the next.
     */
    private Hessian2Input input(InputStream in) {
        Hessian2Input i = new Hessian2Input(in);
        i.setSerializerFactory(factory);
        return i;
    }

    @Override
    public void writeResult(Object value, OutputStream out) throws IOException {
        Hessian2Output o = outputs.get();
        o.init(out);
        try {
            o.writeObject(value);
            o.flushBuffer();
        } finally {
            o.init(null);
        }
    }

    @Override
    public Object readResult(InputStream in, Class<?> type) throws IOException {
        Hessian2Input i = input(in);
        return type == void.class || type == Void.class ? i.readObject() : i.readObject(type);
    }

    /**
     * Checks every type name read from a payload. Hessian's own class filter would quietly turn a
     * refused class into a {@code HashMap}; this refuses it loudly, before the class is loaded.
     */
    static final class AllowListSerializerFactory extends SerializerFactory {
        /** Hessian's built-in type names, the only names without a package it may read. */
        private static final Set<String> BUILT_IN = Set.of("void", "boolean", "byte", "short", "int", "long",
                "float", "double", "char", "string", "object", "date", "[boolean", "[byte", "[short", "[int",
                "[long", "[float", "[double", "[char", "[string", "[object");

        private final ClassAllowList allowList;
        // Hessian's own cache of deserializers by type name locks a shared map on every lookup.
        private final Map<String, Deserializer> byName = new ConcurrentHashMap<>();

        AllowListSerializerFactory(ClassAllowList allowList) {
            this.allowList = allowList;
            // The allow-list decides what may be read; like kryo and protostuff, hessian then
            // carries plain DTOs whether or not they implement Serializable.
            setAllowNonSerializable(true);
        }

        @Override
        public Deserializer getDeserializer(String type) throws HessianProtocolException {
            if (type == null || type.isEmpty()) {
                return super.getDeserializer(type);
            }
            Deserializer d = byName.get(type);
            if (d != null) {
                return d;
            }
            if (!BUILT_IN.contains(type) && !allowList.isAllowed(type)) {
                throw new ClassNotAllowedException(type);
            }
            d = super.getDeserializer(type);
            if (d != null) {
                byName.put(type, d); // bounded: only allowed names get here
            }
            return d;
        }

        @Override
        public Class<?> loadSerializedClass(String className) throws ClassNotFoundException {
            allowList.check(className);
            return super.loadSerializedClass(className);
        }
    }
}
