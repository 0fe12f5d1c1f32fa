package io.xrpc.spring.architecture;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.type;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.xrpc.internal.Checks;
import io.xrpc.internal.Futures;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The rules between modules in docs/ARCHITECTURE.md, on the main classes of xrpc-core,
 * xrpc-registry and this starter (all on this module's class path; the core's test jar is left
 * out).
 */
@Timeout(60)
class ModuleBoundariesTest {
    static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(location -> !location.contains("-tests.jar"))
                .importPackages("io.xrpc");
    }

    @Test
    void allThreeModulesAreImported() {
        org.assertj.core.api.Assertions.assertThat(classes.contain("io.xrpc.client.RpcClient")).isTrue();
        org.assertj.core.api.Assertions.assertThat(classes.contain("io.xrpc.registry.zookeeper.ZookeeperRegistry"))
                .isTrue();
        org.assertj.core.api.Assertions.assertThat(
                classes.contain("io.xrpc.spring.autoconfigure.XrpcAutoConfiguration")).isTrue();
        org.assertj.core.api.Assertions.assertThat(classes.contain("io.xrpc.testing.Allocations"))
                .as("the core's test jar is not main code").isFalse();
    }

    @Test
    void theStarterNeedsOnlyTheRegistryModulesPresence() {
        noClasses().that().resideInAPackage("io.xrpc.spring..")
                .should().dependOnClassesThat().resideInAPackage("io.xrpc.registry.zookeeper..")
                .because("it sets ZooKeeper's settings as the string parameters of io.xrpc.registry.RegistryConfig,"
                        + " and finds the registry by its scheme")
                .check(classes);
    }

    /**
     * The rule above sees types and methods; a {@code String} constant of the registry module is
     * copied into the starter by javac and leaves no trace in its classes, so the sources are read
     * too.
     */
    @Test
    void theStartersSourcesNameNothingOfTheRegistryModule() throws java.io.IOException {
        java.nio.file.Path sources = java.nio.file.Path.of("src/main/java");
        org.assertj.core.api.Assertions.assertThat(sources).isDirectory();
        try (java.util.stream.Stream<java.nio.file.Path> files = java.nio.file.Files.walk(sources)) {
            java.util.List<String> naming = files.filter(f -> f.toString().endsWith(".java"))
                    .filter(f -> read(f).contains("io.xrpc.registry.zookeeper"))
                    .map(java.nio.file.Path::toString).toList();
            org.assertj.core.api.Assertions.assertThat(naming).as("starter sources naming io.xrpc.registry.zookeeper")
                    .isEmpty();
        }
    }

    private static String read(java.nio.file.Path f) {
        try {
            return java.nio.file.Files.readString(f);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    @Test
    void theRegistryModuleUsesOnlyTheCoresSettingChecks() {
        noClasses().that().resideInAPackage("io.xrpc.registry.zookeeper..")
                .should().dependOnClassesThat(resideInAPackage("io.xrpc.internal..").and(not(type(Checks.class))))
                .because("io.xrpc.internal is the core's own; Checks words a bad setting as the core does")
                .check(classes);
    }

    @Test
    void theStarterUsesOnlyTheCoresFutureHelpers() {
        noClasses().that().resideInAPackage("io.xrpc.spring..")
                .should().dependOnClassesThat(resideInAPackage("io.xrpc.internal..").and(not(type(Futures.class))))
                .because("io.xrpc.internal is the core's own; Futures unwraps a call's outcome as the core does")
                .check(classes);
    }
}
