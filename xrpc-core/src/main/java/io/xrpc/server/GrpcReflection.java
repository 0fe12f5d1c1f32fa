package io.xrpc.server;

import io.xrpc.serialize.protobuf.ProtoField;
import java.util.List;
import java.util.concurrent.Flow;

/**
 * gRPC server reflection ({@code grpc.reflection.v1.ServerReflection}, and {@code v1alpha}), as an
 * XRpc service whose derived contract is reflection's own: a provider with HTTP and reflection on
 * exports it, and the gRPC side routes both reflection paths to it, so that grpcurl, Postman and
 * Kreya list and call its services without a file, through the same authenticator, limits and
 * interceptors as any call. The records mirror {@code reflection.proto}, their numbers pinned.
 */
public interface GrpcReflection {
    /** The full names gRPC clients use for this service. */
    List<String> GRPC_NAMES =
            List.of("grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection");

    /** One question: exactly one of the last five is set. */
    record ServerReflectionRequest(
            String host,
            @ProtoField(3) String fileByFilename,
            String fileContainingSymbol,
            ExtensionRequest fileContainingExtension,
            String allExtensionNumbersOfType,
            String listServices) {}

    record ExtensionRequest(String containingType, int extensionNumber) {}

    /** One answer: exactly one of the last four is set. */
    record ServerReflectionResponse(
            String validHost,
            ServerReflectionRequest originalRequest,
            @ProtoField(4) FileDescriptorResponse fileDescriptorResponse,
            ExtensionNumberResponse allExtensionNumbersResponse,
            ListServiceResponse listServicesResponse,
            ErrorResponse errorResponse) {}

    record FileDescriptorResponse(List<byte[]> fileDescriptorProto) {}

    record ExtensionNumberResponse(String baseTypeName, List<Integer> extensionNumber) {}

    record ListServiceResponse(List<ServiceResponse> service) {}

    record ServiceResponse(String name) {}

    record ErrorResponse(int errorCode, String errorMessage) {}

    /** Answers each question as it comes. */
    Flow.Publisher<ServerReflectionResponse> ServerReflectionInfo(Flow.Publisher<ServerReflectionRequest> requests);
}
