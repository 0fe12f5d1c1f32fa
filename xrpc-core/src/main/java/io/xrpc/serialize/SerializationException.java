package io.xrpc.serialize;

import java.io.IOException;

/**
 * A payload could not be read: it is malformed, truncated, has bytes left over, or the library
 * failed on it. Serializers throw this (or {@link ClassNotAllowedException} or
 * {@link PayloadLimitException}) for anything wrong with a payload, never a library's own error.
 */
public class SerializationException extends IOException {
    private static final long serialVersionUID = 1L;

    public SerializationException(String message) {
        super(message);
    }

    public SerializationException(String message, Throwable cause) {
        super(message, cause);
    }
}
