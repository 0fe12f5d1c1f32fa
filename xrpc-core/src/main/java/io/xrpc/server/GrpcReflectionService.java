package io.xrpc.server;

import io.xrpc.common.ServerReflection;
import io.xrpc.serialize.protobuf.ProtoContract;
import io.xrpc.stream.Streams;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Flow;

/** What {@link GrpcReflection} answers: the derived contracts of the services exported now. */
final class GrpcReflectionService implements GrpcReflection {
    private static final int NOT_FOUND = 5;
    private static final int UNIMPLEMENTED = 12;

    private final ServiceDispatcher dispatcher;

    GrpcReflectionService(ServiceDispatcher dispatcher) {
        this.dispatcher = dispatcher;
    }

    @Override
    public Flow.Publisher<ServerReflectionResponse> ServerReflectionInfo(
            Flow.Publisher<ServerReflectionRequest> requests) {
        return Streams.map(requests, this::answer);
    }

    /** The contracts of the exported interfaces (one per interface, whatever its versions and groups). */
    private Map<String, ProtoContract> contracts() {
        Map<String, ProtoContract> all = new LinkedHashMap<>();
        for (ServiceDispatcher.Exported e : dispatcher.exports()) {
            Class<?> type = e.type();
            if (type != GrpcReflection.class && type != ServerReflection.class) {
                ProtoContract c = ProtoContract.of(type);
                all.putIfAbsent(c.fullServiceName(), c);
            }
        }
        return all;
    }

    private ServerReflectionResponse answer(ServerReflectionRequest q) {
        if (q.listServices() != null) {
            List<ServiceResponse> names = new ArrayList<>();
            for (String name : contracts().keySet()) {
                names.add(new ServiceResponse(name));
            }
            names.add(new ServiceResponse(GRPC_NAMES.get(0)));
            return new ServerReflectionResponse(q.host(), q, null, null, new ListServiceResponse(names), null);
        }
        if (q.fileContainingSymbol() != null) {
            for (ProtoContract c : contracts().values()) {
                if (c.defines(q.fileContainingSymbol())) {
                    return file(q, c.fileDescriptor());
                }
            }
            return error(q, NOT_FOUND, "no symbol " + q.fileContainingSymbol() + " on this server");
        }
        if (q.fileByFilename() != null) {
            byte[] known = ProtoContract.wellKnownFile(q.fileByFilename());
            if (known != null) {
                return file(q, known);
            }
            for (ProtoContract c : contracts().values()) {
                if (c.fileName().equals(q.fileByFilename())) {
                    return file(q, c.fileDescriptor());
                }
            }
            return error(q, NOT_FOUND, "no file " + q.fileByFilename() + " on this server");
        }
        return error(
                q,
                UNIMPLEMENTED,
                "only list_services, file_containing_symbol and file_by_filename are answered"
                        + " (derived contracts have no extensions)");
    }

    private static ServerReflectionResponse file(ServerReflectionRequest q, byte[] descriptor) {
        return new ServerReflectionResponse(
                q.host(), q, new FileDescriptorResponse(List.of(descriptor)), null, null, null);
    }

    private static ServerReflectionResponse error(ServerReflectionRequest q, int code, String message) {
        return new ServerReflectionResponse(q.host(), q, null, null, null, new ErrorResponse(code, message));
    }
}
