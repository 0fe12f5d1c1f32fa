package io.xrpc.benchmark.cli;

import io.xrpc.serialize.protobuf.ProtoContract;
import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code xrpc proto}: the {@code .proto} a provider's gRPC side reads and writes for a service,
 * derived from its Java interface exactly as the provider derives it, for {@code protoc}, grpcurl
 * or a gRPC library's loader. What protobuf cannot express is named in the file's comments.
 */
@Command(
        name = "proto",
        mixinStandardHelpOptions = true,
        description = "Prints the .proto of a service's gRPC side, derived from its Java interface.")
final class ProtoCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "SERVICE", description = "The interface name, such as com.acme.Orders.")
    String service;

    @Option(
            names = "--classpath",
            split = ",",
            paramLabel = "JAR_OR_DIR",
            description = "Jars or class directories holding the interface and its types (default: this tool's own).")
    List<File> classpath = new ArrayList<>();

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        ClassLoader loader = ProtoCommand.class.getClassLoader();
        if (!classpath.isEmpty()) {
            List<URL> urls = new ArrayList<>();
            for (File f : classpath) {
                urls.add(f.toURI().toURL());
            }
            loader = new URLClassLoader(urls.toArray(new URL[0]), loader);
        }
        Class<?> type;
        try {
            type = Class.forName(service, false, loader);
        } catch (ClassNotFoundException e) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(),
                    "no interface " + service + " on the class path: name its jar with --classpath");
        }
        if (!type.isInterface()) {
            throw new CommandLine.ParameterException(spec.commandLine(), service + " is not an interface");
        }
        spec.commandLine().getOut().print(ProtoContract.of(type).proto());
        spec.commandLine().getOut().flush();
        return 0;
    }
}
