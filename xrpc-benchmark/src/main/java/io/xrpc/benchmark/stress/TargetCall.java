package io.xrpc.benchmark.stress;

import io.xrpc.benchmark.cli.Access;
import io.xrpc.benchmark.cli.Arguments;
import io.xrpc.benchmark.cli.Providers;
import io.xrpc.client.GenericService;
import io.xrpc.client.RpcClient;
import io.xrpc.common.ServiceKey;
import io.xrpc.config.ReferenceOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import picocli.CommandLine;

/**
 * The stress tool's {@code --target} mode: one method of a user's running service, called through a
 * {@link GenericService} with JSON arguments, as the {@code xrpc call} command calls it; no code and
 * no jar of the service. Argument sets come from {@code --args} (one) or {@code --args-file} (one
 * JSON array a line), used round-robin; the parameter types from {@code --types} or the provider's
 * reflection.
 *
 * @param target     {@code host:port} or a registry address ({@code zookeeper://host:port})
 * @param key        the service: interface name, version and group
 * @param method     the method name
 * @param types      its parameter types
 * @param argumentSets the arguments of each call, used in turn
 */
record TargetCall(String target, ServiceKey key, String method, List<String> types, List<List<Object>> argumentSets) {

    /** Parses the options and, when no types are given, asks the provider's reflection for them. */
    static TargetCall resolve(
            String target,
            String call,
            String args,
            Path argsFile,
            List<String> types,
            RpcClient client,
            Duration timeout,
            Access access,
            CommandLine cl)
            throws Exception {
        int slash = call == null ? -1 : call.lastIndexOf('/');
        if (slash <= 0 || slash == call.length() - 1) {
            throw new CommandLine.ParameterException(
                    cl, "--call " + call + " (expected: SERVICE/METHOD, such as" + " com.acme.Orders/find)");
        }
        if (args != null && argsFile != null) {
            throw new CommandLine.ParameterException(cl, "--args and --args-file: give one");
        }
        List<List<Object>> sets = new ArrayList<>();
        if (argsFile != null) {
            int line = 0;
            for (String l : Files.readAllLines(argsFile)) {
                line++;
                if (!l.isBlank()) {
                    try {
                        sets.add(Arguments.parse(l.trim(), cl));
                    } catch (CommandLine.ParameterException e) {
                        throw new CommandLine.ParameterException(
                                cl, argsFile + " line " + line + ": " + e.getMessage());
                    }
                }
            }
            if (sets.isEmpty()) {
                throw new CommandLine.ParameterException(
                        cl, argsFile + " holds no argument set (expected: one JSON" + " array a line)");
            }
        } else {
            sets.add(Arguments.parse(args == null ? "[]" : args, cl));
        }
        ServiceKey key = access.key(call.substring(0, slash));
        String method = call.substring(slash + 1);
        int count = sets.get(0).size();
        for (List<Object> s : sets) {
            if (s.size() != count) {
                throw new CommandLine.ParameterException(
                        cl,
                        "argument sets of " + count + " and " + s.size() + " values: every set calls the same method");
            }
        }
        List<String> resolved = types;
        if (resolved == null) {
            String address = isRegistry(target) ? Providers.providerOf(target, key) : target;
            resolved = Arguments.typesOf(Providers.describe(client, address, key, timeout), method, count, cl);
        }
        return new TargetCall(target, key, method, List.copyOf(resolved), List.copyOf(sets));
    }

    static boolean isRegistry(String target) {
        return target.contains("://");
    }

    /** The client that calls the target: through its registry, or straight to its address; TLS and token as given. */
    static RpcClient client(String target, Access access, Duration timeout) throws Exception {
        return Providers.client(
                isRegistry(target) ? target : null, isRegistry(target) ? null : target, access, timeout);
    }

    /**
     * One call of the method a measured caller makes, the argument sets taken in turn. The first
     * call is made here, once: a target that cannot be called fails the run with its error
     * rather than filling every level with it.
     */
    StressTool.Call caller(RpcClient client) {
        ReferenceOptions.Builder o =
                ReferenceOptions.builder().version(key.version()).group(key.group());
        if (!isRegistry(target)) {
            o.address(target);
        }
        GenericService generic = client.generic(key.interfaceName(), o.build());
        generic.invoke(method, types, argumentSets.get(0));
        int n = argumentSets.size();
        if (n == 1) {
            List<Object> only = argumentSets.get(0);
            return () -> generic.invoke(method, types, only);
        }
        // Each caller takes the sets in turn, from a place of its own: no counter shared by every caller.
        ThreadLocal<int[]> next = ThreadLocal.withInitial(
                () -> new int[] {ThreadLocalRandom.current().nextInt(n)});
        return () -> {
            int[] i = next.get();
            i[0] = (i[0] + 1) % n;
            generic.invoke(method, types, argumentSets.get(i[0]));
        };
    }
}
