package io.xrpc.registry.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The registry module's drawing (docs/ARCHITECTURE.md, "xrpc-registry"), on its main classes: the
 * facade on top, the consumer's and the provider's sides beside each other, the session and the
 * layout below them.
 */
class RegistryArchitectureTest {
    private static final String ROOT = "io.xrpc.registry.zookeeper";
    static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages(ROOT);
    }

    @Test
    void thePartsNeverClimbBackToTheFacade() {
        noClasses()
                .that()
                .resideInAnyPackage(ROOT + ".session..", ROOT + ".layout..", ROOT + ".publish..", ROOT + ".discover..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage(ROOT)
                .because("the facade wires the parts; a part takes what it needs as arguments")
                .check(classes);
    }

    @Test
    void providersAndConsumersKnowNothingOfEachOther() {
        noClasses()
                .that()
                .resideInAPackage(ROOT + ".publish..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage(ROOT + ".discover..")
                .check(classes);
        noClasses()
                .that()
                .resideInAPackage(ROOT + ".discover..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage(ROOT + ".publish..")
                .because("what a provider writes and what a consumer reads meet only in the layout")
                .check(classes);
    }

    @Test
    void theSessionAndTheLayoutAreTheGroundFloor() {
        noClasses()
                .that()
                .resideInAPackage(ROOT + ".session..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(ROOT + ".layout..", ROOT + ".publish..", ROOT + ".discover..")
                .check(classes);
        noClasses()
                .that()
                .resideInAPackage(ROOT + ".layout..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        ROOT + ".session..",
                        ROOT + ".publish..",
                        ROOT + ".discover..",
                        "org.apache.zookeeper..",
                        "org.apache.curator..")
                .because("node names and data are plain text, the one place both sides agree on")
                .check(classes);
    }

    @Test
    void onlyTheSessionOpensConnections() {
        noClasses()
                .that()
                .resideOutsideOfPackage(ROOT + ".session..")
                .should()
                .dependOnClassesThat()
                .haveFullyQualifiedName("org.apache.curator.framework.CuratorFrameworkFactory")
                .because("one session per registry, made in one place")
                .check(classes);
    }

    @Test
    void noCyclesBetweenTheParts() {
        slices().matching(ROOT + ".(*)..").should().beFreeOfCycles().check(classes);
    }

    @Test
    void theRegistryUsesTheCoreThroughItsContracts() {
        noClasses()
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "io.xrpc.client..",
                        "io.xrpc.server..",
                        "io.xrpc.transport..",
                        "io.xrpc.protocol..",
                        "io.netty..")
                .because("a registry is found by its scheme and serves the registry SPI; it calls nobody")
                .check(classes);
    }

    @Test
    void thePartsAreNamedAsTheirPackagesSay() {
        classes()
                .that()
                .resideInAPackage(ROOT + ".publish..")
                .and()
                .arePublic()
                .should()
                .haveSimpleName("Publisher")
                .because("the facade needs only the publisher; the layouts and the keeper stay inside")
                .check(classes);
    }
}
