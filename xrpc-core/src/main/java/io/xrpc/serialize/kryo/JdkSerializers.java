package io.xrpc.serialize.kryo;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.Registration;
import com.esotericsoftware.kryo.Serializer;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import com.esotericsoftware.kryo.serializers.ImmutableSerializer;
import io.xrpc.internal.EnumTypes;
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
    private JdkSerializers() {
    }

    static void addDefaults(Kryo kryo) {
        kryo.addDefaultSerializer(UUID.class, new UuidSerializer());
        kryo.addDefaultSerializer(Timestamp.class, new TimestampSerializer());
        kryo.addDefaultSerializer(AtomicInteger.class, new AtomicIntegerSerializer());
        kryo.addDefaultSerializer(AtomicLong.class, new AtomicLongSerializer());
        kryo.addDefaultSerializer(AtomicBoolean.class, new AtomicBooleanSerializer());
        kryo.addDefaultSerializer(EnumMap.class, new EnumMapSerializer());
    }

    static final class UuidSerializer extends ImmutableSerializer<UUID> {
        @Override
        public void write(Kryo kryo, Output output, UUID u) {
            output.writeLong(u.getMostSignificantBits());
            output.writeLong(u.getLeastSignificantBits());
        }

        @Override
        public UUID read(Kryo kryo, Input input, Class<? extends UUID> type) {
            return new UUID(input.readLong(), input.readLong());
        }
    }

    static final class TimestampSerializer extends Serializer<Timestamp> {
        @Override
        public void write(Kryo kryo, Output output, Timestamp t) {
            output.writeVarLong(t.getTime(), false);
            output.writeVarInt(t.getNanos(), true);
        }

        @Override
        public Timestamp read(Kryo kryo, Input input, Class<? extends Timestamp> type) {
            Timestamp t = new Timestamp(input.readVarLong(false));
            int nanos = input.readVarInt(true);
            if (nanos < 0 || nanos > 999_999_999) {
                throw new KryoException("java.sql.Timestamp with nanos " + nanos);
            }
            t.setNanos(nanos);
            return t;
        }

        @Override
        public Timestamp copy(Kryo kryo, Timestamp original) {
            Timestamp t = new Timestamp(original.getTime());
            t.setNanos(original.getNanos());
            return t;
        }
    }

    static final class AtomicIntegerSerializer extends Serializer<AtomicInteger> {
        @Override
        public void write(Kryo kryo, Output output, AtomicInteger v) {
            output.writeVarInt(v.get(), false);
        }

        @Override
        public AtomicInteger read(Kryo kryo, Input input, Class<? extends AtomicInteger> type) {
            return new AtomicInteger(input.readVarInt(false));
        }
    }

    static final class AtomicLongSerializer extends Serializer<AtomicLong> {
        @Override
        public void write(Kryo kryo, Output output, AtomicLong v) {
            output.writeVarLong(v.get(), false);
        }

        @Override
        public AtomicLong read(Kryo kryo, Input input, Class<? extends AtomicLong> type) {
            return new AtomicLong(input.readVarLong(false));
        }
    }

    static final class AtomicBooleanSerializer extends Serializer<AtomicBoolean> {
        @Override
        public void write(Kryo kryo, Output output, AtomicBoolean v) {
            output.writeBoolean(v.get());
        }

        @Override
        public AtomicBoolean read(Kryo kryo, Input input, Class<? extends AtomicBoolean> type) {
            return new AtomicBoolean(input.readBoolean());
        }
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
                throw new KryoException("EnumMap keyed by " + (r == null ? "null" : r.getType().getName())
                        + " (expected: an enum)");
            }
            Class keyType = r.getType();
            Object[] keys = keyType.getEnumConstants();
            int n = input.readVarInt(true);
            io.xrpc.serialize.ReadGuard.checkLength(EnumMap.class.getName(), n, 2, ((GuardedInput) input).remaining());
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
