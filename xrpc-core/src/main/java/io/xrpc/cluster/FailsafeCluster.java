package io.xrpc.cluster;

import io.xrpc.common.Invocation;
import io.xrpc.common.RpcException;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code failsafe}: one attempt; on failure log a warning and return the result type's empty value
 * ({@code null}, 0, {@code false}, an empty collection or {@code Optional}). For calls whose result
 * is optional, such as audit logging.
 */
public final class FailsafeCluster implements Cluster {
    private static final Logger log = LoggerFactory.getLogger(FailsafeCluster.class);

    @Override
    public String name() {
        return "failsafe";
    }

    @Override
    public CompletableFuture<Object> invoke(Invocation invocation, Attempts attempts) {
        CompletableFuture<Object> f;
        try {
            f = attempts.send(invocation, attempts.select(invocation, Set.of()));
        } catch (RpcException e) {
            f = CompletableFuture.failedFuture(e);
        }
        return f.exceptionally(t -> {
            log.warn(
                    "failsafe: {} failed, returning an empty value: {}",
                    invocation.method(),
                    FailoverCluster.asRpc(t).getMessage());
            return emptyValue(invocation.method().resultType());
        });
    }

    static Object emptyValue(Class<?> type) {
        if (type == boolean.class) {
            return false;
        }
        if (type == char.class) {
            return '\0';
        }
        if (type == byte.class) {
            return (byte) 0;
        }
        if (type == short.class) {
            return (short) 0;
        }
        if (type == int.class) {
            return 0;
        }
        if (type == long.class) {
            return 0L;
        }
        if (type == float.class) {
            return 0f;
        }
        if (type == double.class) {
            return 0d;
        }
        if (type == List.class || type == Collection.class) {
            return Collections.emptyList();
        }
        if (type == Set.class) {
            return Collections.emptySet();
        }
        if (type == Map.class) {
            return Collections.emptyMap();
        }
        if (type == Optional.class) {
            return Optional.empty();
        }
        return null;
    }
}
