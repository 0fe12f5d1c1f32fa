package io.xrpc.benchmark.cli;

import io.xrpc.benchmark.stress.DurationConverter;
import io.xrpc.client.RpcClient;
import io.xrpc.common.RpcException;
import io.xrpc.common.RpcStatus;
import io.xrpc.common.ServiceKey;
import io.xrpc.config.ReferenceOptions;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** Where the provider is and how to reach it: the options every command shares. */
final class Target {
    @Option(names = "--address", description = "The provider's host:port.")
    String address;

    @Option(
            names = "--registry",
            description = "A registry address, such as zookeeper://127.0.0.1:2181, to find"
                    + " providers in (describe and call).")
    String registry;

    @Option(
            names = "--timeout",
            converter = DurationConverter.class,
            description = "Deadline of the call (default: 3s).")
    Duration timeout = Duration.ofSeconds(3);

    @Option(
            names = "--wait",
            converter = DurationConverter.class,
            description = "Wait up to this long for a provider that is not reachable yet (starting, or not yet"
                    + " registered), such as 30s (default: 0s, fail at once).")
    Duration waitFor = Duration.ZERO;

    /** Runs {@code action}, again while it fails UNAVAILABLE (no provider reachable) within --wait. */
    <T> T waiting(Callable<T> action) throws Exception {
        long until = System.nanoTime() + waitFor.toNanos();
        for (; ; ) {
            try {
                return action.call();
            } catch (RpcException e) {
                if (e.status() != RpcStatus.UNAVAILABLE || System.nanoTime() - until >= 0) {
                    throw e;
                }
                Thread.sleep(200); // a provider starting: look again
            }
        }
    }

    @Mixin
    Access access = new Access();

    RpcClient client(CommandLine cl) throws Exception {
        if (address == null && registry == null) {
            throw new CommandLine.ParameterException(cl, "give --address host:port or --registry ADDRESS");
        }
        try {
            access.checkPlaintextToken(address);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(cl, e.getMessage());
        }
        return Providers.client(address == null ? registry : null, address, access, timeout);
    }

    /** The reference options of {@code service}: at --address, or the providers the registry lists. */
    ReferenceOptions options(String service) {
        ServiceKey key = access.key(service);
        ReferenceOptions.Builder o = ReferenceOptions.builder()
                .timeout(timeout)
                .version(key.version())
                .group(key.group());
        if (address != null) {
            o.address(address);
        }
        return o.build();
    }

    /**
     * The address of a provider of {@code service}: --address, or the first the registry lists,
     * since reflection is asked of one provider and is not itself registered.
     */
    String providerOf(String service) {
        return address != null ? address : Providers.providerOf(registry, access.key(service));
    }

    ReferenceOptions at(String address) {
        return ReferenceOptions.builder().address(address).timeout(timeout).build();
    }
}
