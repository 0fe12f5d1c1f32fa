package io.xrpc.spring.autoconfigure;

import io.xrpc.serialize.TypeCheck;

/**
 * XRpc could not start, with what to do about it. Spring Boot turns it into its "APPLICATION FAILED
 * TO START" report (through {@link XrpcFailureAnalyzer}), with the description and the action,
 * rather than a stack of nested bean creation exceptions.
 */
public class XrpcStartupException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    private final String action;

    /**
     * @param description what failed, naming the property or bean and the value
     * @param action      what the user can change to make it start
     */
    public XrpcStartupException(String description, String action, Throwable cause) {
        super(description, cause);
        this.action = action;
    }

    /** The report of a type the serializer cannot carry; {@code choose} says where the serializer is chosen. */
    static XrpcStartupException unsupportedType(
            String description, String choose, TypeCheck.UnsupportedTypeException cause) {
        return new XrpcStartupException(
                description,
                "Choose a serializer that carries the type (" + choose
                        + "), or set xrpc.type-check: warn to start anyway and fail only the calls that carry it.",
                cause);
    }

    /** What to change so that the application starts. */
    public String action() {
        return action;
    }
}
