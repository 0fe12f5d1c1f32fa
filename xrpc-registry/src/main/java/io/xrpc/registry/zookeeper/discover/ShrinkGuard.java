package io.xrpc.registry.zookeeper.discover;

import io.xrpc.common.Endpoint;
import io.xrpc.common.ServiceKey;
import io.xrpc.registry.ServiceInstance;
import io.xrpc.registry.zookeeper.session.ZookeeperSession;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One list's shrink guard: providers that vanish while the registry is disturbed (this client's
 * connection down or just back), or more of them within the window than the guard's share of the
 * list, are held in the list. They are let go once the registry has listed no further departure
 * for a window and is not disturbed, and each after three windows whatever happens (a connection
 * that keeps dropping does not hold them for ever); one that comes back meanwhile is the
 * registry's again. A held provider that is really gone refuses its connection, which failover
 * retries elsewhere and outlier detection sets aside. O(departed) per change.
 *
 * <p>Not thread-safe: its {@link ProviderList} guards it, and runs {@code releaseDue} (under its
 * lock) when a release may be due.
 */
final class ShrinkGuard {
    private static final Logger log = LoggerFactory.getLogger(ZookeeperSession.LOGGER);
    /**
     * The fewest departures within the shrink guard's window that count as many: a small service
     * stopping its two providers one after the other is believed at once.
     */
    static final int MASS_DEPARTURE = 3;

    /** A provider the guard keeps, and since when (nanoTime). */
    private record Held(ServiceInstance instance, long since) {}

    private final ServiceKey key;
    private final ZookeeperSession session;
    /** Share of a list that may vanish within the window before departures are held; 0: never held. */
    private final double share;

    private final long windowNanos;
    /** Whether the current hold was logged: once per episode for the whole registry, not once per service. */
    private final AtomicBoolean holdLogged;
    /** What runs the release when it may be due: the list's, under its lock. */
    private final Runnable releaseDue;
    /** Providers that vanished while the guard held departures, by address. */
    private final Map<Endpoint, Held> held = new LinkedHashMap<>();
    /** When the registry last listed a provider gone (nanoTime). */
    private long lastDeparture;
    /** The guard's window: when it began, the list's size then, and who left since and is not back. */
    private long windowStart;

    private int windowBase;
    private final Map<Endpoint, ServiceInstance> windowGone = new HashMap<>();
    private ScheduledFuture<?> release;

    ShrinkGuard(
            ServiceKey key,
            ZookeeperSession session,
            double share,
            long windowNanos,
            AtomicBoolean holdLogged,
            Runnable releaseDue) {
        this.key = key;
        this.session = session;
        this.share = share;
        this.windowNanos = windowNanos;
        this.holdLogged = holdLogged;
        this.releaseDue = releaseDue;
    }

    /** Whether the guard is on (a share above 0). */
    boolean enabled() {
        return share > 0;
    }

    /** Whether nothing is held. */
    boolean isEmpty() {
        return held.isEmpty();
    }

    /**
     * These providers left a list of {@code before} entries: held when the registry is disturbed
     * or they are many within the window.
     */
    void departed(List<ServiceInstance> departed, int before) {
        if (departed.isEmpty()) {
            return;
        }
        long t = System.nanoTime();
        lastDeparture = t;
        if (windowGone.isEmpty() || t - windowStart > windowNanos) {
            windowStart = t;
            windowBase = before;
            windowGone.clear();
        }
        for (ServiceInstance i : departed) {
            windowGone.put(i.endpoint(), i);
        }
        boolean mass = windowGone.size() >= MASS_DEPARTURE && windowGone.size() > share * windowBase;
        boolean disturbed = session.disturbed(windowNanos);
        if (disturbed || mass) {
            // Those that left earlier in the window too: the share was reached only now.
            for (ServiceInstance i : windowGone.values()) {
                held.putIfAbsent(i.endpoint(), new Held(i, t));
            }
            if (holdLogged.compareAndSet(false, true)) {
                log.warn(
                        "ZooKeeper {} {}: {} of {} providers of {} vanished; keeping them until the registry"
                                + " has been stable for {} ms (calls to any that are really gone fail over; logged once"
                                + " per episode)",
                        session.connectString(),
                        disturbed ? "was disconnected just now" : "lists many providers gone at once",
                        windowGone.size(),
                        windowBase,
                        key,
                        TimeUnit.NANOSECONDS.toMillis(windowNanos));
            }
            if (release == null) {
                scheduleRelease(windowNanos);
            }
        }
    }

    /** {@code e} is listed by the registry again: no longer held, and not counted as gone in the window. */
    void back(Endpoint e) {
        if (held.remove(e) != null && held.isEmpty()) {
            heldGone();
        }
        windowGone.remove(e);
    }

    /** {@code e} left and is not to be held (no longer believed). */
    void forget(Endpoint e) {
        held.remove(e);
    }

    /** Lets go of everything held. */
    void releaseAll() {
        boolean had = !held.isEmpty();
        held.clear();
        if (had) {
            heldGone();
        }
    }

    /** {@code listed} itself, plus what is held (rarely anything). */
    List<ServiceInstance> withHeld(List<ServiceInstance> listed) {
        if (held.isEmpty()) {
            return listed;
        }
        List<ServiceInstance> all = new ArrayList<>(listed.size() + held.size());
        all.addAll(listed);
        held.values().forEach(h -> all.add(h.instance()));
        return Collections.unmodifiableList(all);
    }

    private void scheduleRelease(long delayNanos) {
        release = session.worker().schedule(releaseDue, delayNanos, TimeUnit.NANOSECONDS);
    }

    /**
     * Lets go of what is held once the registry has listed no departure for a window and this
     * client is connected, and of each provider held three windows; else looks again when that
     * may be. A call that finds nothing due (one overtaken by a later departure) only
     * reschedules, so a stale one does no harm. Returns whether it let any go.
     *
     * @param closed whether the list is closed: then nothing more is done
     */
    boolean release(boolean closed) {
        release = null;
        if (closed || held.isEmpty()) {
            return false;
        }
        long t = System.nanoTime();
        long quiet = t - lastDeparture;
        int before = held.size();
        if (quiet >= windowNanos && !session.disturbed(windowNanos)) {
            held.clear();
        } else {
            held.values().removeIf(h -> t - h.since() >= 3 * windowNanos);
        }
        boolean released = held.size() < before;
        if (released) {
            log.info(
                    "ZooKeeper {}: letting go of {} providers of {} it no longer lists ({} ms since a provider"
                            + " last vanished)",
                    session.connectString(),
                    before - held.size(),
                    key,
                    TimeUnit.NANOSECONDS.toMillis(quiet));
        }
        if (held.isEmpty()) {
            heldGone();
            return released;
        }
        long oldest = Long.MAX_VALUE;
        for (Held h : held.values()) {
            oldest = Math.min(oldest, 3 * windowNanos - (t - h.since()));
        }
        scheduleRelease(
                Math.max(1_000_000, Math.min(oldest, windowNanos - quiet > 0 ? windowNanos - quiet : windowNanos)));
        return released;
    }

    /** Nothing is held any more: the next hold starts a new episode, logged again. */
    private void heldGone() {
        windowGone.clear();
        holdLogged.set(false);
        if (release != null) {
            release.cancel(false);
            release = null;
        }
    }
}
