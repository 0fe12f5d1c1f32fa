package io.xrpc.common;

import java.util.List;
import java.util.Map;

/**
 * What a provider exports, asked over the wire: XRpc's counterpart of gRPC's server reflection, so
 * that a tool (the {@code xrpc} command line, a gateway, a test platform) can list the services,
 * describe their methods and types and build a {@linkplain io.xrpc.client.GenericService generic}
 * call without the services' jar.
 *
 * <p>Every server exports it under this interface's name unless turned off
 * ({@code RpcServer.Builder.reflection(false)}, {@code xrpc.server.reflection=false}). It is a
 * service like any other: its calls pass the server's authenticator and interceptors, which see it
 * as {@code io.xrpc.common.ServerReflection}. Whoever it admits sees the shape of every service the
 * server exports (names, methods, field names and types; never data): an authenticator that keeps
 * some callers from a service should keep them from this one too, or turn it off. It is not
 * registered in the registry and does not list itself. It reads only what the server holds in
 * memory and changes nothing. Answers are JSON-shaped values (maps, lists, strings, booleans), so
 * every serializer carries them; a caller with the classes can call it through a typed proxy.
 */
public interface ServerReflection {

    /**
     * One entry per exported service, sorted by key: {@code service} (the key, {@code
     * group/interface:version}), {@code interface}, {@code version}, {@code group},
     * {@code serializers} (those it accepts; empty for any) and {@code methods} (their signatures).
     */
    @Idempotent
    List<Map<String, Object>> services();

    /**
     * One service in full: the entry {@link #services()} gives, with {@code methods} as one map
     * each ({@code name}, {@code signature}, {@code parameterTypes}, {@code parameters} and
     * {@code result} as JSON-Schema-like shapes, {@code resultType}, {@code idempotent},
     * {@code exceptions}) and {@code types}: each class the methods exchange, by name, as its
     * fields' shapes, which a {@code $ref} of {@code #/types/NAME} points to.
     *
     * @param service a key as {@link #services()} gives it, or an interface name when only one
     *                version and group of it is exported
     * @throws IllegalArgumentException naming the services there are, when none or several match
     */
    @Idempotent
    Map<String, Object> describe(String service);
}
