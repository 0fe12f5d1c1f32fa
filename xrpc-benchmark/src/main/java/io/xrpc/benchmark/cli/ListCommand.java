package io.xrpc.benchmark.cli;

import io.xrpc.client.RpcClient;
import io.xrpc.common.ServerReflection;
import io.xrpc.registry.Registries;
import io.xrpc.registry.Registry;
import io.xrpc.registry.RegistryConfig;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code xrpc list}: what a provider exports, or the interfaces a registry has providers of. */
@Command(
        name = "list",
        mixinStandardHelpOptions = true,
        description = "Lists the services a provider exports (--address: from its reflection service), or the"
                + " interfaces a registry has providers of (--registry).")
final class ListCommand implements Callable<Integer> {
    @Mixin
    Target target;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        CommandLine cl = spec.commandLine();
        if (target.address == null && target.registry != null) {
            // The registry knows the interfaces; what each exports, its providers' reflection says.
            try (Registry r = Registries.create(target.registry)) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("registry", RegistryConfig.mask(target.registry));
                m.put("interfaces", r.interfaceNames());
                cl.getOut().println(XrpcCli.JSON.writeValueAsString(m));
                return 0;
            }
        }
        try (RpcClient client = target.client(cl)) {
            Object services =
                    target.waiting(() -> client.generic(ServerReflection.class.getName(), target.at(target.address))
                            .invoke("services", List.of(), List.of()));
            cl.getOut().println(XrpcCli.JSON.writeValueAsString(services));
            return 0;
        }
    }
}
