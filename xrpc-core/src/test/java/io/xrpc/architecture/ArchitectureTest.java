package io.xrpc.architecture;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The dependency rules of docs/ARCHITECTURE.md, on the main classes of xrpc-core; the rules
 * between modules are the starter's {@code ModuleBoundariesTest}, whose class path holds them all.
 */
class ArchitectureTest {
    static JavaClasses classes;

    @BeforeAll
    static void importClasses() {
        classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("io.xrpc");
    }

    @Test
    void nettyStaysInTheCodecAndTheNettyTransport() {
        noClasses()
                .that()
                .resideOutsideOfPackages("io.xrpc.protocol.codec..", "io.xrpc.transport.netty..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("io.netty..")
                .because("Netty is one transport; the rest of XRpc speaks in its own types")
                .check(classes);
    }

    @Test
    void commonIsTheGroundFloor() {
        noClasses()
                .that()
                .resideInAPackage("io.xrpc.common..")
                .should()
                .dependOnClassesThat(resideInAPackage("io.xrpc..").and(not(resideInAPackage("io.xrpc.common.."))))
                .because("every other package speaks in its types: descriptors, keys, statuses, invocations")
                .check(classes);
    }

    @Test
    void theStreamHelpersStandOnCommonAlone() {
        noClasses()
                .that()
                .resideInAPackage("io.xrpc.stream..")
                .should()
                .dependOnClassesThat(resideInAPackage("io.xrpc..")
                        .and(not(resideInAnyPackage("io.xrpc.stream..", "io.xrpc.common.."))))
                .because("they are application code's Flow helpers, on either side of any transport")
                .check(classes);
    }

    @Test
    void configurationSitsNearTheGround() {
        noClasses()
                .that()
                .resideInAPackage("io.xrpc.config..")
                .should()
                .dependOnClassesThat(resideInAPackage("io.xrpc..")
                        .and(not(resideInAnyPackage(
                                "io.xrpc.config..",
                                "io.xrpc.common..",
                                "io.xrpc.internal..",
                                "io.xrpc.serialize", // the allow-list, read limits and type check a builder sets
                                "io.xrpc.protocol")))) // ProtocolConstants: the wire's limits are the defaults
                .because("options are plain values; the packages that use them depend on config, not the other way")
                .check(classes);
    }

    @Test
    void serializersAndCompressorsKnowNothingOfCallsAndConnections() {
        noClasses()
                .that()
                .resideInAnyPackage("io.xrpc.serialize..", "io.xrpc.compress..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("io.xrpc.transport..", "io.xrpc.client..", "io.xrpc.server..")
                .because("a serializer or compressor turns values into bytes, whatever carries them")
                .check(classes);
    }

    @Test
    void theWireFormatKnowsNothingOfClientAndServer() {
        noClasses()
                .that()
                .resideInAPackage("io.xrpc.protocol..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("io.xrpc.client..", "io.xrpc.server..")
                .check(classes);
    }

    @Test
    void balancingAndFailoverProgramAgainstTheTransportSeam() {
        noClasses()
                .that()
                .resideInAnyPackage("io.xrpc.loadbalance..", "io.xrpc.cluster..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("io.xrpc.transport.netty..")
                .check(classes);
    }

    @Test
    void theTransportSeamIsFreeOfTheCodec() {
        noClasses()
                .that()
                .resideInAPackage("io.xrpc.transport")
                .and()
                .resideOutsideOfPackage("io.xrpc.transport.netty..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("io.xrpc.protocol.codec..")
                .because("the codec is Netty's; io.xrpc.transport is what another transport would implement")
                .check(classes);
    }

    @Test
    void packagesHaveNoCycles() {
        slices().matching("io.xrpc.(**)").should().beFreeOfCycles().check(classes);
    }

    @Test
    void theNettyTransportKnowsNothingOfClientAndServer() {
        noClasses()
                .that()
                .resideInAPackage("io.xrpc.transport.netty..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("io.xrpc.client..", "io.xrpc.server..")
                .because("a transport serves the RequestHandler and ClientTransport contracts of io.xrpc.transport")
                .check(classes);
    }

    @Test
    void onlyTheBuildersChooseTheNettyTransport() {
        noClasses()
                .that()
                .resideOutsideOfPackage("io.xrpc.transport.netty..")
                .and()
                .doNotHaveFullyQualifiedName("io.xrpc.client.RpcClient")
                .and()
                .doNotHaveFullyQualifiedName("io.xrpc.client.RpcClient$Builder")
                .and()
                .doNotHaveFullyQualifiedName("io.xrpc.server.RpcServer")
                .and()
                .doNotHaveFullyQualifiedName("io.xrpc.server.RpcServer$Builder")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("io.xrpc.transport.netty..")
                .because("everything else programs against io.xrpc.transport")
                .check(classes);
    }

    /**
     * A call walks down once: the client runs the interceptors and hands the call to its cluster,
     * which chooses a provider through the balancer and sends through the transport; nothing below
     * the client calls back into it (as Dubbo's cluster invoker owns its directory and balancer).
     */
    @Test
    void aCallNeverClimbsBackToTheClient() {
        noClasses()
                .that()
                .resideInAnyPackage(
                        "io.xrpc.cluster..", "io.xrpc.loadbalance..", "io.xrpc.transport..", "io.xrpc.registry..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("io.xrpc.client..")
                .because("the cluster owns choosing and sending: a request never climbs back a floor")
                .check(classes);
        noClasses()
                .that()
                .resideInAnyPackage("io.xrpc.loadbalance..", "io.xrpc.transport..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("io.xrpc.cluster..")
                .because("the balancer and the transport are the floors below the cluster")
                .check(classes);
    }

    /** On the server, the transport finds the route in the table of exports and hands the call to the policy once. */
    @Test
    void theServerPolicyIsEnteredOnlyThroughTheTransportSeam() {
        noClasses()
                .that()
                .resideInAPackage("io.xrpc.transport..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("io.xrpc.server..")
                .check(classes);
    }
}
