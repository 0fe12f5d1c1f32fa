package io.xrpc.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The dependency rules of docs/ARCHITECTURE.md, on the main classes of xrpc-core. */
class ArchitectureTest {
    static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.xrpc");
    }

    @Test
    void nettyStaysInTheCodecAndTheNettyTransport() {
        noClasses().that().resideOutsideOfPackages("io.xrpc.protocol.codec..", "io.xrpc.transport.netty..")
                .should().dependOnClassesThat().resideInAPackage("io.netty..")
                .because("Netty is one transport; the rest of XRpc speaks in its own types")
                .check(classes);
    }

    @Test
    void packagesHaveNoCycles() {
        slices().matching("io.xrpc.(**)").should().beFreeOfCycles().check(classes);
    }

    @Test
    void theNettyTransportKnowsNothingOfClientAndServer() {
        noClasses().that().resideInAPackage("io.xrpc.transport.netty..")
                .should().dependOnClassesThat().resideInAnyPackage("io.xrpc.client..", "io.xrpc.server..")
                .because("a transport serves the RequestHandler and ClientTransport contracts of io.xrpc.transport")
                .check(classes);
    }

    @Test
    void onlyTheBuildersChooseTheNettyTransport() {
        noClasses().that().resideOutsideOfPackage("io.xrpc.transport.netty..")
                .and().doNotHaveFullyQualifiedName("io.xrpc.client.RpcClient")
                .and().doNotHaveFullyQualifiedName("io.xrpc.client.RpcClient$Builder")
                .and().doNotHaveFullyQualifiedName("io.xrpc.server.RpcServer")
                .and().doNotHaveFullyQualifiedName("io.xrpc.server.RpcServer$Builder")
                .should().dependOnClassesThat().resideInAPackage("io.xrpc.transport.netty..")
                .because("everything else programs against io.xrpc.transport")
                .check(classes);
    }
}
