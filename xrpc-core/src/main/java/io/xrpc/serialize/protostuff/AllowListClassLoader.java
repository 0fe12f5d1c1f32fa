package io.xrpc.serialize.protostuff;

import io.xrpc.serialize.ClassAllowList;

/**
 * Protostuff's runtime turns every class name it reads into a class through the thread's context
 * class loader; while a payload is read, that loader is this one, which refuses names outside the
 * allow-list with {@link io.xrpc.serialize.ClassNotAllowedException} (an unchecked exception, so
 * protostuff cannot fall back to {@code Class.forName} as it does for ClassNotFoundException).
 */
final class AllowListClassLoader extends ClassLoader {
    private final ClassAllowList allowList;

    AllowListClassLoader(ClassLoader parent, ClassAllowList allowList) {
        super(parent);
        this.allowList = allowList;
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        allowList.check(name);
        return super.loadClass(name, resolve);
    }
}
