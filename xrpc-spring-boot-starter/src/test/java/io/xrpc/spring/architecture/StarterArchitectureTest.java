package io.xrpc.spring.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The starter's own drawing (docs/ARCHITECTURE.md, "xrpc-spring-boot-starter"), on its main
 * classes: the annotations an application's code names, the observations that are plain
 * interceptors, and the auto-configuration that wires both onto the core's builders.
 */
@Timeout(60)
class StarterArchitectureTest {
    static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.xrpc.spring");
    }

    @Test
    void theAnnotationsCarryNoWiring() {
        noClasses()
                .that()
                .resideInAPackage("io.xrpc.spring")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "io.xrpc.spring.autoconfigure..", "io.xrpc.spring.observation..", "org.springframework.boot..")
                .because("service code names @RpcService and @RpcReference; what they mean is the auto-configuration's")
                .check(classes);
    }

    @Test
    void observationsAreInterceptorsTheAutoConfigurationInstalls() {
        noClasses()
                .that()
                .resideInAPackage("io.xrpc.spring.observation..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "io.xrpc.spring.autoconfigure..",
                        "org.springframework.boot..",
                        "org.springframework.context..",
                        "org.springframework.beans..")
                .because("they are ClientInterceptor and ServerInterceptor over Micrometer's API, usable without Boot")
                .check(classes);
    }

    @Test
    void onlyTheAutoConfigurationKnowsSpringBoot() {
        noClasses()
                .that()
                .resideOutsideOfPackage("io.xrpc.spring.autoconfigure..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("org.springframework.boot..")
                .check(classes);
    }

    @Test
    void theStarterCallsTheCoreThroughItsApi() {
        noClasses()
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("io.xrpc.transport..", "io.xrpc.protocol.codec..", "io.netty..")
                .because("it maps properties onto RpcClient's and RpcServer's builders and names extensions by name")
                .check(classes);
    }

    @Test
    void noCyclesInTheStarter() {
        slices().matching("io.xrpc.spring.(**)").should().beFreeOfCycles().check(classes);
    }
}
