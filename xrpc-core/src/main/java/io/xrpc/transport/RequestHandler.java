package io.xrpc.transport;

import io.xrpc.common.MethodDescriptor;
import io.xrpc.common.ServiceKey;
import java.util.Set;

/**
 * What a server transport asks of the server: where a request goes, and running it. The server
 * implements it ({@code io.xrpc.server.CallPolicy}); a transport knows only this, so the
 * server may depend on a transport and never the other way round.
 */
public interface RequestHandler {

    /** The exported method for {@code signature} of {@code serviceKey}, or {@code null}. */
    Route find(String serviceKey, String signature);

    /** Whether any method is exported under {@code serviceKey}. */
    boolean hasService(String serviceKey);

    /**
     * The keys the interface of {@code serviceKey} is exported under (other versions or groups),
     * for the error that answers a key not exported; empty when none.
     */
    default java.util.List<String> exportedAs(String serviceKey) {
        return java.util.List.of();
    }

    /**
     * Runs one routed request from a thread of the call executor to its answer: the server's
     * policy (deadline, authentication, arguments, interceptors, implementation, statuses). The
     * exchange answers it; this never throws for anything the request did.
     */
    void handle(ServerExchange exchange);

    /** One exported method, as a transport sees it. */
    interface Route {
        ServiceKey serviceKey();

        MethodDescriptor descriptor();

        /** Whether the service takes requests in serializer {@code name}. */
        boolean accepts(String name);

        /** The serializers the service accepts; empty for any. */
        Set<String> acceptedSerializers();

        /** What is wrong with decoded arguments for this method, or {@code null}. */
        String checkArguments(Object[] args);

        /** Whether it runs on the connection's event loop ({@link io.xrpc.common.NonBlocking}). */
        boolean direct();

        /**
         * What the transport keeps about this route, made by {@code make} on the first call (once,
         * whichever thread asks first): the route holds it, of a type the server knows nothing of,
         * for as long as the route exists.
         */
        Object transportState(java.util.function.Supplier<?> make);
    }
}
