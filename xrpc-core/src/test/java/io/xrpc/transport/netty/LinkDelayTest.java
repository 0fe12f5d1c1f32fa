package io.xrpc.transport.netty;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class LinkDelayTest {
    private static final long S = TimeUnit.SECONDS.toNanos(1);

    @Test
    void aFrameReadLateShowsItsWaitWhateverTheOffsetBetweenTheClocks() {
        LinkDelay d = new LinkDelay();
        long now = System.nanoTime();
        int senderClock = 123_456_789; // an origin of the sender's own
        assertThat(d.waited(senderClock, now)).isZero();
        assertThat(d.waited(senderClock + 1000, now + S)).isZero(); // sent 1 s later, read 1 s later
        assertThat(d.waited(senderClock + 2000, now + 9 * S)).isEqualTo(7000); // sent at +2 s, read at +9 s
    }

    @Test
    void aFreezeLongerThanBothWindowsStillShowsAgainstTheLastBaseline() {
        LinkDelay d = new LinkDelay();
        long now = System.nanoTime();
        assertThat(d.waited(0, now)).isZero();
        // Frozen for 90 s: the requests queued then are read oldest first.
        assertThat(d.waited(1000, now + 91 * S)).isEqualTo(90_000);
        assertThat(d.waited(2000, now + 91 * S)).isEqualTo(89_000);
    }
}
