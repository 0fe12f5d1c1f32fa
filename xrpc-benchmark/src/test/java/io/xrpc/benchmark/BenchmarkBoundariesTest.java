package io.xrpc.benchmark;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Which of the core's implementation the measurements may use (docs/ARCHITECTURE.md, rules between
 * modules): the wire codec for the codec's own benchmark and the stress tool's body sizes, the
 * Netty transport's event loops for the raw-Netty baseline, and never {@code io.xrpc.internal}.
 * Everything else calls XRpc as an application does, so what is measured is what users get.
 */
@Timeout(60)
class BenchmarkBoundariesTest {
    static final JavaClasses CLASSES = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.xrpc.benchmark");

    @Test
    void theMeasurementsReachIntoTheCoreOnlyWhereTheyMeasureIt() {
        assertThat(CLASSES.contain("io.xrpc.benchmark.stress.StressTool")).isTrue();
        noClasses()
                .should()
                .dependOnClassesThat()
                .resideInAPackage("io.xrpc.internal..")
                .check(CLASSES);
        noClasses()
                .that()
                .haveNameNotMatching("io\\.xrpc\\.benchmark\\.jmh\\..*FrameBenchmark.*") // and JMH's subclasses
                .and()
                .haveNameNotMatching("io\\.xrpc\\.benchmark\\.stress\\.Rig.*") // the frames raw Netty carries
                .should()
                .dependOnClassesThat()
                .resideInAPackage("io.xrpc.protocol.codec..")
                .check(CLASSES);
        noClasses()
                .that()
                .haveNameNotMatching("io\\.xrpc\\.benchmark\\.stress\\.RawNetty.*")
                .and()
                .haveNameNotMatching("io\\.xrpc\\.benchmark\\.streams\\.RawNettyStreams.*") // the same event loops
                .should()
                .dependOnClassesThat()
                .resideInAPackage("io.xrpc.transport.netty..")
                .check(CLASSES);
    }

    @Test
    void theRegistryScaleToolUsesTheRegistrysApiAlone() {
        assertThat(CLASSES.contain("io.xrpc.benchmark.registry.RegistryScaleTool"))
                .isTrue();
        noClasses()
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(
                        "io.xrpc.registry.zookeeper.session..",
                        "io.xrpc.registry.zookeeper.layout..",
                        "io.xrpc.registry.zookeeper.publish..",
                        "io.xrpc.registry.zookeeper.discover..")
                .because("it measures ZookeeperRegistry as an application gets it")
                .check(CLASSES);
    }
}
