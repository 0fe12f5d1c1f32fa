package io.xrpc.transport.netty;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Spring Boot 3 pins Netty 4.1, under which XRpc died with NoClassDefFoundError: EpollIoHandler. */
class NettyVersionTest {
    @Test
    void nettyFourOneIsRefusedNamingTheVersionAndTheFix() {
        assertThat(NettyVersion.problem("4.1.128.Final"))
                .contains("Netty 4.1.128.Final")
                .contains("Spring Boot 4")
                .contains("netty.version");
        assertThat(NettyVersion.problem("4.2.18.Final")).isNull();
        assertThat(NettyVersion.problem("5.0.0.Alpha1")).isNull();
    }

    @Test
    void theNettyOnThisClasspathPasses() {
        NettyVersion.require();
    }
}
