package io.xrpc.client;

import io.xrpc.serialize.ExceptionValue;
import io.xrpc.serialize.RemoteExceptions;
import io.xrpc.serialize.Serializer;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An exception a remote method declares and threw, as a {@link GenericService} caller receives it
 * without the exception's class: its class name, message and fields (as JSON-shaped values), and
 * the remote stack as this exception's stack trace.
 */
public final class GenericException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    /** Fields read at most (a provider sends at most 32). */
    private static final int MAX_FIELDS = 32;

    private final String className;
    private final transient Map<String, Object> fields;

    private GenericException(String className, String message, Map<String, Object> fields, GenericException cause) {
        super(message, cause);
        this.className = className;
        this.fields = Collections.unmodifiableMap(fields);
    }

    /** The remote exception's class, such as {@code com.acme.OutOfStockException}. */
    public String className() {
        return className;
    }

    /**
     * The exception's own fields by name (the declaring class's name is left out unless two share
     * a name), as JSON-shaped values; empty when the provider carried none. Unmodifiable.
     */
    public Map<String, Object> fields() {
        return fields;
    }

    /** The remote exception's message, without the class name. */
    public String remoteMessage() {
        return super.getMessage();
    }

    @Override
    public String getMessage() {
        String m = super.getMessage();
        return className + (m == null ? "" : ": " + m);
    }

    /** The carried form read as a generic caller sees it; its fields read with {@code serializer} as plain values. */
    static GenericException of(ExceptionValue v, Serializer serializer, long deadlineNanos) {
        return of(v, serializer, deadlineNanos, 0);
    }

    private static GenericException of(ExceptionValue v, Serializer serializer, long deadlineNanos, int depth) {
        GenericException cause =
                v.cause() != null && depth < 4 ? of(v.cause(), serializer, deadlineNanos, depth + 1) : null;
        Map<String, Object> fields = new LinkedHashMap<>();
        String[] names = v.fieldNames();
        if (names != null && names.length > MAX_FIELDS) {
            fields.put("(not carried)", names.length + " fields came; at most " + MAX_FIELDS + " are read");
        } else if (names != null && v.fieldValues() != null) {
            Class<?>[] types = new Class<?>[names.length];
            Arrays.fill(types, Object.class);
            try {
                Object[] values =
                        serializer.readArguments(new ByteArrayInputStream(v.fieldValues()), types, deadlineNanos);
                for (int i = 0; i < names.length && i < values.length; i++) {
                    String n = names[i] == null ? "field" + i : names[i];
                    String shortName = n.substring(n.lastIndexOf('.') + 1);
                    fields.put(fields.containsKey(shortName) ? n : shortName, values[i]);
                }
            } catch (IOException | RuntimeException e) {
                fields.clear();
                fields.put("(not carried)", "its fields could not be read: " + e.getMessage());
            }
        }
        GenericException e = new GenericException(v.className(), v.message(), fields, cause);
        String[] stack = v.stack();
        if (stack != null) {
            e.setStackTrace(RemoteExceptions.stackOf(v));
        }
        return e;
    }
}
