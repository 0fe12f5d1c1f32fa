package io.xrpc.loadbalance;

import static org.assertj.core.api.Assertions.assertThat;

import io.xrpc.common.Endpoint;
import io.xrpc.common.ServiceKey;
import io.xrpc.config.Subsetting;
import io.xrpc.registry.PeerPosition;
import io.xrpc.registry.ServiceInstance;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The aperture's windows: even cover of the ring, bounded size, stable under changes, used whole when it must be. */
@Timeout(60)
class ApertureTest {
    private static final ServiceKey KEY = new ServiceKey("com.acme.Orders", "", "");

    private static List<ServiceInstance> providers(int n, int from) {
        List<ServiceInstance> all = new ArrayList<>(n);
        for (int k = from; k < from + n; k++) {
            all.add(ServiceInstance.of(KEY, new Endpoint("10.0." + (k >> 8) + "." + (k & 255), 20880)));
        }
        return List.copyOf(all);
    }

    private static List<ServiceInstance> window(List<ServiceInstance> all, int index, int count, int min) {
        PeerPosition p = new PeerPosition(index, count);
        return new Aperture(Subsetting.aperture(min, 0), () -> p, () -> {}).window(all);
    }

    /** Each provider's share of all consumers' calls, from the windows' cover. */
    private static Map<Endpoint, Double> shares(List<ServiceInstance> all, int consumers, int min) {
        Map<Endpoint, Double> share = new HashMap<>();
        all.forEach(i -> share.put(i.endpoint(), 0.0));
        for (int c = 0; c < consumers; c++) {
            List<ServiceInstance> w = window(all, c, consumers, min);
            assertThat(w).isInstanceOf(Aperture.Window.class);
            double sum = 0;
            for (int k = 0; k < w.size(); k++) {
                double s = ((Aperture.Window) w).share(k);
                assertThat(s).as("a provider in a window is covered by it").isPositive();
                sum += s;
                share.merge(w.get(k).endpoint(), s, Double::sum);
            }
            assertThat(sum)
                    .as("a window's shares add up to its calls")
                    .isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-9));
        }
        return share;
    }

    @Test
    void everyProviderGetsTheSameShareWhateverTheSizes() {
        int[][] sizes = {{7, 100}, {13, 1000}, {100, 997}, {3, 80}, {250, 2000}, {64, 65}};
        for (int[] s : sizes) {
            List<ServiceInstance> all = providers(s[1], 0);
            Map<Endpoint, Double> share = shares(all, s[0], 16);
            double mean = (double) s[0] / s[1];
            assertThat(share.values())
                    .as("%d consumers x %d providers", s[0], s[1])
                    .allSatisfy(v -> assertThat(v / mean).isBetween(1 - 1e-6, 1 + 1e-6));
        }
    }

    @Test
    void aWindowCoversAtLeastTheMinimumAndNotMuchMore() {
        List<ServiceInstance> all = providers(1000, 0);
        for (int c : new int[] {1, 7, 13, 100, 999}) {
            for (int i = 0; i < c; i += Math.max(1, c / 10)) {
                List<ServiceInstance> w = window(all, i, c, 16);
                if (c == 1) {
                    assertThat(w).as("one consumer: the whole list").isSameAs(all);
                    continue;
                }
                assertThat(w.size()).as("%d of %d", i, c).isGreaterThanOrEqualTo(16);
                // m consumer slices of 1000 / c providers, the fewest covering 16, plus two edges.
                double slice = 1000.0 / c;
                assertThat(w.size()).isLessThanOrEqualTo((int) Math.ceil(Math.ceil(16 / slice) * slice) + 2);
                assertThat(new HashSet<>(w)).as("no provider twice").hasSize(w.size());
            }
        }
    }

    @Test
    void aWindowEndingOnASliceBoundaryHasNoEmptyEdge() {
        // 3 consumers of 100: the last window is [66.67, 100) in provider slices, 34 providers.
        // Computed in floating point its end came out a hair past 100 and took a 35th, rank 0.
        assertThat(window(providers(100, 0), 2, 3, 16)).hasSize(34);
        assertThat(window(providers(100, 0), 0, 3, 16)).hasSize(34);
        assertThat(window(providers(100, 0), 1, 3, 16)).hasSize(34);
    }

    @Test
    void p2cDrawsAPartlyCoveredProviderInThatProportion() {
        List<ServiceInstance> all = providers(1000, 0);
        Aperture.Window w = (Aperture.Window) window(all, 1, 3, 16); // 333.3 providers wide, partial edges
        LoadBalancer p2c = new P2cLoadBalancer().create(new LoadBalancerProvider.Context() {
            @Override
            public int activeCalls(Endpoint endpoint) {
                return 0;
            }

            @Override
            public long latencyNanos(Endpoint endpoint) {
                return 0;
            }

            @Override
            public int[] hashArguments() {
                return new int[] {0};
            }
        });
        Map<ServiceInstance, Integer> picks = new HashMap<>();
        int calls = 2_000_000;
        for (int k = 0; k < calls; k++) {
            picks.merge(p2c.select(w, null), 1, Integer::sum);
        }
        for (int k = 0; k < w.size(); k++) {
            double expected = w.share(k) * calls;
            assertThat((double) picks.getOrDefault(w.get(k), 0))
                    .as("provider %d of the window, share %.4f", k, w.share(k))
                    .isBetween(expected - 5 * Math.sqrt(expected) - 1, expected + 5 * Math.sqrt(expected) + 1);
        }
    }

    @Test
    void aJoinOrALeaveMovesEachWindowByAtMostAnEdge() {
        List<ServiceInstance> all = providers(1000, 0);
        List<ServiceInstance> joined = new ArrayList<>(all);
        joined.addAll(providers(1, 5000));
        List<ServiceInstance> left = new ArrayList<>(all);
        Collections.shuffle(left, new java.util.Random(41));
        left.remove(0);
        for (List<ServiceInstance> next : List.of(List.copyOf(joined), List.copyOf(left))) {
            for (int c = 0; c < 50; c++) {
                Set<ServiceInstance> before = new HashSet<>(window(all, c, 50, 16));
                Set<ServiceInstance> after = new HashSet<>(window(next, c, 50, 16));
                Set<ServiceInstance> moved = new HashSet<>(before);
                moved.removeAll(after);
                Set<ServiceInstance> added = new HashSet<>(after);
                added.removeAll(before);
                assertThat(moved.size() + added.size()).as("consumer %d", c).isLessThanOrEqualTo(4);
            }
        }
    }

    @Test
    void smallListsAnUnknownPlaceAndOffAreUsedWhole() {
        List<ServiceInstance> small = providers(64, 0);
        List<ServiceInstance> large = providers(65, 0);
        PeerPosition p = new PeerPosition(0, 10);
        assertThat(new Aperture(Subsetting.defaults(), () -> p, () -> {}).window(small))
                .isSameAs(small);
        assertThat(new Aperture(Subsetting.defaults(), () -> p, () -> {}).window(large))
                .isInstanceOf(Aperture.Window.class)
                .hasSizeLessThan(65);
        assertThat(new Aperture(Subsetting.defaults(), () -> null, () -> {}).window(large))
                .isSameAs(large);
        assertThat(new Aperture(Subsetting.off(), () -> p, () -> {}).window(large))
                .isSameAs(large);
    }

    @Test
    void aNewPlaceMovesTheWindowAndSaysSo() {
        List<ServiceInstance> all = providers(1000, 0);
        AtomicReference<PeerPosition> place = new AtomicReference<>(new PeerPosition(0, 10));
        AtomicInteger moves = new AtomicInteger();
        Aperture a = new Aperture(Subsetting.defaults(), place::get, moves::incrementAndGet);
        List<ServiceInstance> first = a.window(all);
        assertThat(a.window(all)).as("kept while nothing changed").isSameAs(first);
        assertThat(moves)
                .as("the first window: what the whole list connected to may close")
                .hasValue(1);
        place.set(new PeerPosition(5, 10));
        List<ServiceInstance> second = a.window(all);
        assertThat(moves).hasValue(2);
        assertThat(new HashSet<>(second)).doesNotContainAnyElementsOf(first);
    }

    @Test
    void everyConsumerPlacesProvidersInTheSameOrderWhateverTheListOrder() {
        List<ServiceInstance> all = providers(500, 0);
        List<ServiceInstance> shuffled = new ArrayList<>(all);
        Collections.shuffle(shuffled, ThreadLocalRandom.current());
        for (int c = 0; c < 20; c++) {
            assertThat(window(List.copyOf(shuffled), c, 20, 16)).containsExactlyElementsOf(window(all, c, 20, 16));
        }
    }
}
