package io.xrpc.transport;

import io.xrpc.common.MethodDescriptor;
import io.xrpc.common.ServiceKey;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The table of what a server exports, as a server transport looks a request up in it when the
 * request's head arrives, before anything of its arguments is read: a query that returns a
 * value, never a call into the server's policy. The server's table of exports implements it
 * ({@code io.xrpc.server.ServiceDispatcher}); the routed request then goes to the
 * {@link RequestHandler} once.
 */
public interface Routes {

    /** The exported method for {@code signature} of {@code serviceKey}, or {@code null}. */
    Route find(String serviceKey, String signature);

    /** Whether any method is exported under {@code serviceKey}. */
    boolean hasService(String serviceKey);

    /**
     * The keys the interface of {@code serviceKey} is exported under (other versions or groups),
     * for the error that answers a key not exported; empty when none.
     */
    default List<String> exportedAs(String serviceKey) {
        return List.of();
    }

    /**
     * The exported methods of {@code serviceKey} named {@code name}, whatever their parameters: how
     * a caller that names a method without its parameter types (an HTTP path) finds it. Empty when
     * none; more than one when the name is overloaded.
     */
    default List<Route> named(String serviceKey, String name) {
        return List.of();
    }

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
        Object transportState(Supplier<?> make);
    }
}
