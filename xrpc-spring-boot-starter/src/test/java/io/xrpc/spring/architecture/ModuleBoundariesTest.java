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
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.assertj.core.api.Assertions;
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
        classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .withImportOption(location -> !location.contains("-tests.jar"))
                .importPackages("io.xrpc");
    }

    @Test
    void allThreeModulesAreImported() {
        Assertions.assertThat(classes.contain("io.xrpc.client.RpcClient")).isTrue();
        Assertions.assertThat(classes.contain("io.xrpc.registry.zookeeper.ZookeeperRegistry"))
                .isTrue();
        Assertions.assertThat(classes.contain("io.xrpc.spring.autoconfigure.XrpcAutoConfiguration"))
                .isTrue();
        Assertions.assertThat(classes.contain("io.xrpc.testing.Allocations"))
                .as("the core's test jar is not main code")
                .isFalse();
    }

    @Test
    void theStarterNeedsOnlyTheRegistryModulesPresence() {
        noClasses()
                .that()
                .resideInAPackage("io.xrpc.spring..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("io.xrpc.registry.zookeeper..")
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
    void theStartersSourcesNameNothingOfTheRegistryModule() throws IOException {
        Path sources = Path.of("src/main/java");
        Assertions.assertThat(sources).isDirectory();
        try (Stream<Path> files = Files.walk(sources)) {
            List<String> naming = files.filter(f -> f.toString().endsWith(".java"))
                    .filter(f -> read(f).contains("io.xrpc.registry.zookeeper"))
                    .map(Path::toString)
                    .toList();
            Assertions.assertThat(naming)
                    .as("starter sources naming io.xrpc.registry.zookeeper")
                    .isEmpty();
        }
    }

    private static String read(Path f) {
        try {
            return Files.readString(f);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void theRegistryModuleUsesOnlyTheCoresSettingChecks() {
        noClasses()
                .that()
                .resideInAPackage("io.xrpc.registry.zookeeper..")
                .should()
                .dependOnClassesThat(resideInAPackage("io.xrpc.internal..").and(not(type(Checks.class))))
                .because("io.xrpc.internal is the core's own; Checks words a bad setting as the core does")
                .check(classes);
    }

    @Test
    void theStarterUsesOnlyTheCoresFutureHelpers() {
        noClasses()
                .that()
                .resideInAPackage("io.xrpc.spring..")
                .should()
                .dependOnClassesThat(resideInAPackage("io.xrpc.internal..").and(not(type(Futures.class))))
                .because("io.xrpc.internal is the core's own; Futures unwraps a call's outcome as the core does")
                .check(classes);
    }
}
