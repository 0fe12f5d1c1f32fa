package io.xrpc.serialize.protostuff;

import io.protostuff.Input;
import io.protostuff.Output;
import io.protostuff.Pipe;
import io.protostuff.WireFormat.FieldType;
import io.protostuff.runtime.DefaultIdStrategy;
import io.protostuff.runtime.Delegate;
import io.xrpc.serialize.PayloadLimitException;
import io.xrpc.serialize.SerializationException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.sql.Time;
import java.sql.Timestamp;
import java.time.ZoneOffset;
import java.util.BitSet;
import java.util.Currency;
import java.util.Locale;

/**
 * Protostuff's runtime schema copies a class's non-transient fields, which loses or breaks JDK
 * value types whose state is transient or encapsulated: a {@code Timestamp} arrived as its nanos
 * after 1970, a {@code java.sql.Date} as 0, a {@code BitSet} empty, a {@code Currency} with no
 * fraction digits, a {@code Locale} that throws when used, a {@code ZoneOffset} without its id.
 * These delegates carry each by its public form instead, rebuilt through its public factory. They
 * are registered on the reading and the writing strategy alike.
 */
final class JdkDelegates {
    /** Longest text a delegate reads (a currency code, a language tag, a zone offset). */
    private static final int MAX_TEXT = 256;

    private JdkDelegates() {}

    static void registerAll(DefaultIdStrategy strategy) {
        strategy.registerDelegate(TIMESTAMP);
        strategy.registerDelegate(SQL_DATE);
        strategy.registerDelegate(SQL_TIME);
        strategy.registerDelegate(BIT_SET);
        strategy.registerDelegate(CURRENCY);
        strategy.registerDelegate(LOCALE);
        strategy.registerDelegate(ZONE_OFFSET);
    }

    /** A value carried as one byte string. */
    private abstract static class BytesDelegate<T> implements Delegate<T> {
        private final Class<T> type;

        BytesDelegate(Class<T> type) {
            this.type = type;
        }

        @Override
        public FieldType getFieldType() {
            return FieldType.BYTES;
        }

        @Override
        public Class<?> typeClass() {
            return type;
        }

        @Override
        public void writeTo(Output output, int number, T value, boolean repeated) throws IOException {
            output.writeByteArray(number, encode(value), repeated);
        }

        @Override
        public T readFrom(Input input) throws IOException {
            return decode(input.readByteArray());
        }

        @Override
        public void transfer(Pipe pipe, Input input, Output output, int number, boolean repeated) throws IOException {
            input.transferByteRangeTo(output, false, number, repeated);
        }

        abstract byte[] encode(T value);

        abstract T decode(byte[] bytes) throws IOException;
    }

    /** A value carried as one string. */
    private abstract static class TextDelegate<T> implements Delegate<T> {
        private final Class<T> type;

        TextDelegate(Class<T> type) {
            this.type = type;
        }

        @Override
        public FieldType getFieldType() {
            return FieldType.STRING;
        }

        @Override
        public Class<?> typeClass() {
            return type;
        }

        @Override
        public void writeTo(Output output, int number, T value, boolean repeated) throws IOException {
            output.writeString(number, encode(value), repeated);
        }

        @Override
        public T readFrom(Input input) throws IOException {
            String s = input.readString();
            if (s.length() > MAX_TEXT) {
                throw new PayloadLimitException(
                        type.getName() + " of " + s.length() + " characters (expected: at most " + MAX_TEXT + ")");
            }
            try {
                return decode(s);
            } catch (RuntimeException e) {
                throw new SerializationException("not a " + type.getName() + ": " + e.getMessage());
            }
        }

        @Override
        public void transfer(Pipe pipe, Input input, Output output, int number, boolean repeated) throws IOException {
            input.transferByteRangeTo(output, true, number, repeated);
        }

        abstract String encode(T value);

        abstract T decode(String text);
    }

    /** Whole seconds (floor) and nanos, so sub-millisecond precision survives too. */
    static final Delegate<Timestamp> TIMESTAMP = new BytesDelegate<>(Timestamp.class) {
        @Override
        byte[] encode(Timestamp v) {
            return ByteBuffer.allocate(12)
                    .putLong(Math.floorDiv(v.getTime(), 1000L))
                    .putInt(v.getNanos())
                    .array();
        }

        @Override
        Timestamp decode(byte[] b) throws IOException {
            if (b.length != 12) {
                throw new SerializationException("java.sql.Timestamp of " + b.length + " bytes (expected: 12)");
            }
            ByteBuffer bb = ByteBuffer.wrap(b);
            long seconds = bb.getLong();
            int nanos = bb.getInt();
            if (nanos < 0 || nanos > 999_999_999) {
                throw new SerializationException("java.sql.Timestamp with nanos " + nanos);
            }
            Timestamp t = new Timestamp(Math.multiplyExact(seconds, 1000L));
            t.setNanos(nanos);
            return t;
        }
    };

    /** Epoch milliseconds as a fixed64. */
    private abstract static class MillisDelegate<T extends java.util.Date> implements Delegate<T> {
        private final Class<T> type;

        MillisDelegate(Class<T> type) {
            this.type = type;
        }

        @Override
        public FieldType getFieldType() {
            return FieldType.FIXED64;
        }

        @Override
        public Class<?> typeClass() {
            return type;
        }

        @Override
        public void writeTo(Output output, int number, T value, boolean repeated) throws IOException {
            output.writeFixed64(number, value.getTime(), repeated);
        }

        @Override
        public void transfer(Pipe pipe, Input input, Output output, int number, boolean repeated) throws IOException {
            output.writeFixed64(number, input.readFixed64(), repeated);
        }
    }

    static final Delegate<java.sql.Date> SQL_DATE = new MillisDelegate<>(java.sql.Date.class) {
        @Override
        public java.sql.Date readFrom(Input input) throws IOException {
            return new java.sql.Date(input.readFixed64());
        }
    };

    static final Delegate<Time> SQL_TIME = new MillisDelegate<>(Time.class) {
        @Override
        public Time readFrom(Input input) throws IOException {
            return new Time(input.readFixed64());
        }
    };

    static final Delegate<BitSet> BIT_SET = new BytesDelegate<>(BitSet.class) {
        @Override
        byte[] encode(BitSet v) {
            return v.toByteArray();
        }

        @Override
        BitSet decode(byte[] b) {
            return BitSet.valueOf(b);
        }
    };

    static final Delegate<Currency> CURRENCY = new TextDelegate<>(Currency.class) {
        @Override
        String encode(Currency v) {
            return v.getCurrencyCode();
        }

        @Override
        Currency decode(String s) {
            return Currency.getInstance(s);
        }
    };

    static final Delegate<Locale> LOCALE = new TextDelegate<>(Locale.class) {
        @Override
        String encode(Locale v) {
            return v.toLanguageTag();
        }

        @Override
        Locale decode(String s) {
            return Locale.forLanguageTag(s);
        }
    };

    static final Delegate<ZoneOffset> ZONE_OFFSET = new TextDelegate<>(ZoneOffset.class) {
        @Override
        String encode(ZoneOffset v) {
            return v.getId();
        }

        @Override
        ZoneOffset decode(String s) {
            return ZoneOffset.of(s);
        }
    };
}
