package io.xrpc.spring.autoconfigure;

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

    /** Whether {@code e} is XRpc's start-up type check refusing a type (its message says how to go on). */
    static boolean isTypeCheck(RuntimeException e) {
        return e.getMessage() != null && e.getMessage().contains("typeCheck(WARN)");
    }

    /** What to change so that the application starts. */
    public String action() {
        return action;
    }
}
