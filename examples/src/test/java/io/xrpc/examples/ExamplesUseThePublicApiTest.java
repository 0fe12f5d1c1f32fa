package io.xrpc.examples;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The examples are what users copy: they use XRpc's public API only, never the core's internals,
 * its wire codec or its Netty transport, nor the ZooKeeper module's classes (a registry is an
 * address). One of docs/ARCHITECTURE.md's rules between modules.
 */
@Timeout(60)
class ExamplesUseThePublicApiTest {
    @Test
    void theExamplesUseOnlyThePublicApi() {
        JavaClasses examples = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.xrpc.examples");
        assertThat(examples.contain("io.xrpc.examples.provider.ProviderApplication"))
                .isTrue();
        noClasses()
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "io.xrpc.internal..",
                        "io.xrpc.protocol.codec..",
                        "io.xrpc.transport..",
                        "io.xrpc.registry.zookeeper..")
                .because("an application builds on RpcClient, RpcServer, the options in io.xrpc.config and the"
                        + " starter's annotations")
                .check(examples);
    }
}
