package io.xrpc.serialize;

/**
 * A payload claimed more than its bytes or the {@link ReadLimits} allow: a length or count larger
 * than the rest of the message could hold, too many objects, too deep a nesting, or reading past
 * the call's deadline ({@link ReadDeadlineException}). It is thrown before what was claimed is
 * allocated. Unchecked, like {@link ClassNotAllowedException}, because serialization libraries
 * call back into XRpc through interfaces that declare no checked exceptions.
 */
public class PayloadLimitException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public PayloadLimitException(String message) {
        super(message);
    }
}
