package io.xrpc.testing;

/** A class whose initialisation fails: reading one is an Error, not an Exception. */
public class Boom {
    static {
        if (Boolean.parseBoolean("true")) {
            throw new IllegalStateException("Boom cannot be initialised");
        }
    }
}
