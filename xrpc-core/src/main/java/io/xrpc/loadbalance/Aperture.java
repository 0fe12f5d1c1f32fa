package io.xrpc.loadbalance;

import io.xrpc.common.Endpoint;
import io.xrpc.config.Subsetting;
import io.xrpc.registry.PeerPosition;
import io.xrpc.registry.ServiceInstance;
import java.util.AbstractList;
import java.util.Arrays;
import java.util.List;
import java.util.RandomAccess;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;

/**
 * One reference's subset of its providers ({@link Subsetting}): the window of the ring this
 * consumer covers, computed once per provider list and position and kept until either changes.
 * A list change costs one sort of the providers' ring keys, O(P log P) (10,000 providers: about
 * a millisecond), done by the first call that sees the new list. Thread-safe.
 */
public final class Aperture {
    /** Ring keys keep the provider's index in their low bits. */
    private static final int INDEX_BITS = 21;

    private static final long INDEX_MASK = (1L << INDEX_BITS) - 1;

    private final Subsetting settings;
    private final Supplier<PeerPosition> position;
    private final Runnable moved;
    /** The last window made, and for which list and position. */
    private volatile Window last;
    /** The ring order of the last list: a new place reuses it (consumers come and go more often than lists change). */
    private volatile Ring ring;

    /** A list's ring keys, sorted, each with its index in the list in its low bits. */
    private record Ring(List<ServiceInstance> source, long[] keys) {}

    /**
     * @param position this consumer's place now, or null while unknown; asked only for lists
     *                 larger than the threshold
     * @param moved    run when a new window was made (a new list or place: connections to providers it
     *                 no longer covers may close)
     */
    public Aperture(Subsetting settings, Supplier<PeerPosition> position, Runnable moved) {
        this.settings = settings;
        this.position = position;
        this.moved = moved;
    }

    /** No subsetting: every list is used whole. */
    public static Aperture off() {
        return new Aperture(Subsetting.off(), () -> null, () -> {});
    }

    /**
     * The providers of {@code all} this consumer calls: a {@link Window} of them, or {@code all}
     * itself when it is small, the position unknown, or the window would cover it all.
     */
    public List<ServiceInstance> window(List<ServiceInstance> all) {
        if (!settings.enabled() || all.size() <= settings.threshold() || all.size() > INDEX_MASK) {
            return all;
        }
        PeerPosition p = position.get();
        if (p == null) {
            return all;
        }
        Window w = last;
        if (w == null || w.source != all || !w.position.equals(p)) {
            w = Window.of(all, p, settings.minProviders(), () -> ringOf(all));
            last = w;
            moved.run(); // a new window: connections it no longer covers may close (coalesced by the caller)
        }
        return w.whole ? all : w;
    }

    /** {@code all}'s ring order, made once per list. */
    private long[] ringOf(List<ServiceInstance> all) {
        Ring r = ring;
        if (r == null || r.source != all) {
            r = new Ring(all, Window.ringOrder(all));
            ring = r;
        }
        return r.keys;
    }

    /** Where {@code e} sits on the ring: the same for every consumer, whatever its JVM. */
    static long ringKey(Endpoint e) {
        long h = e.host().hashCode() * 31L + e.port();
        // SplitMix64's finalizer: neighbouring addresses land far apart.
        h = (h ^ (h >>> 30)) * 0xbf58476d1ce4e5b9L;
        h = (h ^ (h >>> 27)) * 0x94d049bb133111ebL;
        return h ^ (h >>> 31);
    }

    /**
     * The providers one consumer's window covers, in ring order, and how much of each: the window
     * starts {@code offset} into the first one's slice and is {@code width} slices wide, so the
     * first and last are covered in part. {@link #pick} draws a provider in proportion to the
     * part covered; as a plain list, every provider counts alike.
     */
    public static final class Window extends AbstractList<ServiceInstance> implements RandomAccess {
        final List<ServiceInstance> source;
        final PeerPosition position;
        final boolean whole;
        private final ServiceInstance[] members;
        private final double offset;
        private final double width;

        private Window(
                List<ServiceInstance> source,
                PeerPosition position,
                boolean whole,
                ServiceInstance[] members,
                double offset,
                double width) {
            this.source = source;
            this.position = position;
            this.whole = whole;
            this.members = members;
            this.offset = offset;
            this.width = width;
        }

        /**
         * The window of consumer {@code p} over {@code all}: {@code m} consumer slices wide, the
         * fewest that cover {@code minProviders} provider slices, starting at the consumer's own.
         */
        static Window of(List<ServiceInstance> all, PeerPosition p, int minProviders, Supplier<long[]> rings) {
            int n = all.size();
            long c = p.count();
            long m = Math.min(c, (minProviders * c + n - 1) / n); // ceil(minProviders * c / n)
            // In units of 1/c provider slices, exactly: the window is [index * n, (index + m) * n).
            long from = p.index() * (long) n;
            long to = (p.index() + m) * n;
            int first = (int) (from / c);
            int count = (int) ((to + c - 1) / c - first);
            if (m >= c || count >= n) {
                return new Window(all, p, true, null, 0, 0);
            }
            double start = (double) (from - first * c) / c + first;
            double width = (double) (m * n) / c;
            long[] ring = rings.get();
            ServiceInstance[] members = new ServiceInstance[count];
            for (int k = 0; k < count; k++) {
                members[k] = all.get((int) (ring[(first + k) % n] & INDEX_MASK));
            }
            return new Window(all, p, false, members, start - first, width);
        }

        /** {@code all}'s ring: each provider's ring key with its index in the list, sorted. O(P log P). */
        static long[] ringOrder(List<ServiceInstance> all) {
            int n = all.size();
            long[] keys = new long[n];
            for (int i = 0; i < n; i++) {
                keys[i] = (ringKey(all.get(i).endpoint()) & ~INDEX_MASK) | i;
            }
            Arrays.sort(keys);
            return keys;
        }

        /** A provider's place in this window, drawn in proportion to the part of it the window covers. */
        public int pick(ThreadLocalRandom r) {
            int k = (int) (offset + r.nextDouble() * width);
            return Math.min(k, members.length - 1);
        }

        /** The share of this window's calls provider {@code k} of it receives: the part of the window over its slice. */
        public double share(int k) {
            double lo = Math.max(offset, k);
            double hi = Math.min(offset + width, k + 1);
            return Math.max(0, hi - lo) / width;
        }

        @Override
        public ServiceInstance get(int index) {
            return members[index];
        }

        @Override
        public int size() {
            return members.length;
        }
    }
}
