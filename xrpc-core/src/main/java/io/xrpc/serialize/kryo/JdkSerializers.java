package io.xrpc.serialize.kryo;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.Registration;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import com.esotericsoftware.kryo.serializers.DefaultSerializers;
import io.xrpc.internal.EnumTypes;
import io.xrpc.serialize.ReadGuard;
import java.sql.Timestamp;
import java.util.EnumMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Kryo serializers for JDK values its defaults cannot carry on JDK 17 without {@code --add-opens}
 * (its field serializer reflects into {@code java.util}: UUID and the atomics failed with
 * InaccessibleObjectException) or carry wrongly (a Timestamp lost its nanoseconds, an EnumMap
 * could not be read back without registering its key type).
 */
final class JdkSerializers {
    private JdkSerializers() {}

    static void addDefaults(Kryo kryo) {
        // Kryo ships these, but its defaults would use field serializers (closed to it on JDK 17).
        kryo.addDefaultSerializer(UUID.class, DefaultSerializers.UUIDSerializer.class);
        kryo.addDefaultSerializer(Timestamp.class, DefaultSerializers.TimestampSerializer.class);
        kryo.addDefaultSerializer(AtomicInteger.class, DefaultSerializers.AtomicIntegerSerializer.class);
        kryo.addDefaultSerializer(AtomicLong.class, DefaultSerializers.AtomicLongSerializer.class);
        kryo.addDefaultSerializer(AtomicBoolean.class, DefaultSerializers.AtomicBooleanSerializer.class);
        kryo.addDefaultSerializer(EnumMap.class, new EnumMapSerializer());
    }

    /** The key enum's class, then each entry as the key's ordinal and the value. */
    @SuppressWarnings({"rawtypes", "unchecked"})
    static final class EnumMapSerializer extends Serializer<EnumMap> {
        @Override
        public void write(Kryo kryo, Output output, EnumMap map) {
            kryo.writeClass(output, EnumTypes.keyType(map));
            output.writeVarInt(map.size(), true);
            for (Object o : map.entrySet()) {
                Map.Entry e = (Map.Entry) o;
                output.writeVarInt(((Enum) e.getKey()).ordinal(), true);
                kryo.writeClassAndObject(output, e.getValue());
            }
        }

        @Override
        public EnumMap read(Kryo kryo, Input input, Class<? extends EnumMap> type) {
            Registration r = kryo.readClass(input);
            if (r == null || !r.getType().isEnum()) {
                throw new KryoException(
                        "EnumMap keyed by " + (r == null ? "null" : r.getType().getName()) + " (expected: an enum)");
            }
            Class keyType = r.getType();
            Object[] keys = keyType.getEnumConstants();
            int n = input.readVarInt(true);
            ReadGuard.checkLength(EnumMap.class.getName(), n, 2, ((GuardedInput) input).remaining());
            EnumMap map = new EnumMap(keyType);
            for (int i = 0; i < n; i++) {
                int ordinal = input.readVarInt(true);
                if (ordinal < 0 || ordinal >= keys.length) {
                    throw new KryoException("no constant " + ordinal + " in " + keyType.getName());
                }
                map.put(keys[ordinal], kryo.readClassAndObject(input));
            }
            return map;
        }
    }
}
