package io.xrpc.serialize;

import io.xrpc.internal.Texts;

/**
 * A payload named a class outside the {@link ClassAllowList}; nothing of it was constructed.
 * Unchecked because serialization libraries call back into XRpc through interfaces that do not
 * declare checked exceptions.
 */
public class ClassNotAllowedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String className;

    public ClassNotAllowedException(String className) {
        super("class not allowed for deserialization: " + Texts.cut(className, 300)
                + " (add it or its package to the allow-list of the client or server)");
        this.className = className;
    }

    public String className() {
        return className;
    }
}
