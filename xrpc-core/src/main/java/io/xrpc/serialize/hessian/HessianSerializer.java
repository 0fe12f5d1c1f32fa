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

/**
 * Hessian 2 ({@link Hessian2Output}/{@link Hessian2Input}), through Apache Dubbo's maintained
 * hessian-lite, which handles {@code java.time} on current JDKs.
 *
 * <p>One {@link SerializerFactory} (thread-safe, caches per-class serializers) serves every
 * thread; the stream objects, which hold an 8 KiB buffer and reference tables, are kept one per
 * thread and reset between uses. Arguments are read with their declared parameter type, so
 * Hessian's narrowing (a {@code short} travels as an int) comes back as the right type.
 */
public final class HessianSerializer implements Serializer {
    public static final byte ID = 2;

    private final AllowListSerializerFactory factory;
    private final ThreadLocal<Hessian2Output> outputs;
    private final ThreadLocal<Hessian2Input> inputs;

    public HessianSerializer(ClassAllowList allowList) {
        this.factory = new AllowListSerializerFactory(allowList);
        this.outputs = ThreadLocal.withInitial(() -> {
            Hessian2Output o = new Hessian2Output(null);
            o.setSerializerFactory(factory);
            return o;
        });
        this.inputs = ThreadLocal.withInitial(() -> {
            Hessian2Input i = new Hessian2Input(null);
            i.setSerializerFactory(factory);
            return i;
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
        Hessian2Input i = inputs.get();
        i.init(in);
        try {
            Object[] args = new Object[parameterTypes.length];
            for (int n = 0; n < args.length; n++) {
                args[n] = i.readObject(parameterTypes[n]);
            }
            return args;
        } finally {
            i.init(null);
        }
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
        Hessian2Input i = inputs.get();
        i.init(in);
        try {
            return type == void.class || type == Void.class ? i.readObject() : i.readObject(type);
        } finally {
            i.init(null);
        }
    }

    /**
     * Checks every type name read from a payload. Hessian's own class filter would quietly turn a
     * refused class into a {@code HashMap}; this refuses it loudly, before the class is loaded.
     */
    static final class AllowListSerializerFactory extends SerializerFactory {
        private final ClassAllowList allowList;

        AllowListSerializerFactory(ClassAllowList allowList) {
            this.allowList = allowList;
            // The allow-list decides what may be read; like kryo and protostuff, hessian then
            // carries plain DTOs whether or not they implement Serializable.
            setAllowNonSerializable(true);
        }

        @Override
        public Deserializer getDeserializer(String type) throws HessianProtocolException {
            // Names without a dot are Hessian's built-in short names ("int", "[string", "object").
            if (type != null && !type.isEmpty() && type.indexOf('.') >= 0 && !allowList.isAllowed(type)) {
                throw new ClassNotAllowedException(type);
            }
            return super.getDeserializer(type);
        }

        @Override
        public Class<?> loadSerializedClass(String className) throws ClassNotFoundException {
            allowList.check(className);
            return super.loadSerializedClass(className);
        }
    }
}
