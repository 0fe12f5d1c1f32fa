/** The hessian serializer; see its {@code Serializer} class for how it is kept thread-safe and safe to read. */
package io.xrpc.serialize.hessian;
