package io.xrpc.registry.zookeeper.discover;

import io.xrpc.common.Endpoint;
import io.xrpc.common.ServiceKey;
import io.xrpc.registry.ServiceInstance;
import io.xrpc.registry.zookeeper.session.ZookeeperSession;
import java.util.ArrayList;
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
 * list, are held in the list; so is, within three windows of such a disturbance, a provider whose
 * node went with its session rather than with its leaving ({@link #departed}'s {@code expired}: a
 * provider replaces such a node under its new session once it reaches ZooKeeper again, and that
 * must not be published as a departure). They
 * are let go once the registry has listed no further departure, and brought back none of those
 * held, for a window and is not disturbed, and each after three windows whatever happens (a
 * connection that keeps dropping does not hold them for ever); one that comes back meanwhile is
 * the registry's again. A held provider that is really gone refuses its connection, which
 * failover retries elsewhere and outlier detection sets aside. O(departed) per change.
 *
 * <p>Held providers stay in their {@link ProviderList}'s index (nothing is copied per change while
 * many are held); the guard says which. Not thread-safe: its list guards it, and runs
 * {@code releaseDue} (under its lock) when a release may be due.
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
    /** When the registry last listed a provider gone, or brought back one held (nanoTime). */
    private long lastChange;
    /** When a provider was last held or one held came back: the episode ends a window after it. */
    private long lastHoldChange;
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

    /** How many are held. */
    int size() {
        return held.size();
    }

    /** Whether {@code e} is held: gone from the registry, still in the list. */
    boolean isHeld(Endpoint e) {
        return !held.isEmpty() && held.containsKey(e);
    }

    /** What is held now. */
    List<ServiceInstance> heldInstances() {
        List<ServiceInstance> all = new ArrayList<>(held.size());
        held.values().forEach(h -> all.add(h.instance()));
        return all;
    }

    /**
     * These providers left a list the registry gave as {@code before} entries: held when their
     * sessions ended rather than they left ({@code expired}), when the registry is disturbed, or
     * when they are many within the window. Returns what is newly held: these, and those that left
     * earlier in the window (the share was reached only now); the list keeps or takes them back.
     */
    List<ServiceInstance> departed(List<ServiceInstance> departed, int before, boolean expired) {
        if (departed.isEmpty()) {
            return List.of();
        }
        long t = System.nanoTime();
        lastChange = t;
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
        List<ServiceInstance> now = new ArrayList<>();
        if (disturbed || mass) {
            // Those that left earlier in the window too: the share was reached only now.
            for (ServiceInstance i : windowGone.values()) {
                if (held.putIfAbsent(i.endpoint(), new Held(i, t)) == null) {
                    now.add(i);
                }
            }
        } else if (expired && session.disturbed(3 * windowNanos)) {
            // Sessions end in numbers after an outage, and their providers write their nodes again
            // as they reconnect, over tens of seconds on a loaded ensemble. Outside such times a
            // session's end is a provider gone (killed, frozen) and is believed at once.
            for (ServiceInstance i : departed) {
                if (held.putIfAbsent(i.endpoint(), new Held(i, t)) == null) {
                    now.add(i);
                }
            }
        } else {
            return now;
        }
        if (!now.isEmpty()) {
            lastHoldChange = t;
        }
        if (!now.isEmpty() && holdLogged.compareAndSet(false, true)) {
            log.warn(
                    "ZooKeeper {} {}: {} of {} providers of {} vanished; keeping them until they register"
                            + " again or the registry has been stable for {} ms (calls to any that are really gone"
                            + " fail over; logged once per episode)",
                    session.connectString(),
                    disturbed
                            ? "was disconnected just now"
                            : mass ? "lists many providers gone at once" : "lists providers whose sessions ended",
                    disturbed || mass ? windowGone.size() : departed.size(),
                    windowBase,
                    key,
                    TimeUnit.NANOSECONDS.toMillis(windowNanos));
        }
        if (release == null) {
            scheduleRelease(windowNanos);
        }
        return now;
    }

    /** {@code e} is listed by the registry again: no longer held, and not counted as gone in the window. */
    void back(Endpoint e) {
        if (held.isEmpty()) {
            windowGone.remove(e);
            return;
        }
        if (held.remove(e) != null) {
            // The registry is still healing: hold the rest a window more. The episode (and its one
            // warning) ends only once the guard has been quiet for a window (release()): thousands
            // of sessions coming back one by one are one episode, not thousands.
            lastChange = System.nanoTime();
            lastHoldChange = lastChange;
        }
        windowGone.remove(e);
    }

    /** {@code e} left and is not to be held (no longer believed). */
    void forget(Endpoint e) {
        held.remove(e);
        windowGone.remove(e); // not to be held back by a later mass departure either
    }

    /** Lets go of everything held; returns it (the list drops it). */
    List<Endpoint> releaseAll() {
        List<Endpoint> all = new ArrayList<>(held.keySet());
        held.clear();
        heldGone(); // also when all came back and the episode had not ended yet
        return all;
    }

    private void scheduleRelease(long delayNanos) {
        release = session.worker().schedule(releaseDue, delayNanos, TimeUnit.NANOSECONDS);
    }

    /**
     * Lets go of what is held once the registry has listed no departure and brought back none of
     * those held for a window and this client is connected, and of each provider held three
     * windows; else looks again when that may be. A call that finds nothing due (one overtaken by
     * a later change) only reschedules, so a stale one does no harm. Returns what it let go.
     *
     * @param closed whether the list is closed: then nothing more is done
     */
    List<Endpoint> release(boolean closed) {
        release = null;
        if (closed) {
            return List.of();
        }
        long t = System.nanoTime();
        long quiet = t - lastChange;
        if (held.isEmpty()) {
            // Everything came back: the episode is over a window after the last hold or return
            // (not the last departure: a busy fleet always has one, and its next outage must warn).
            long since = t - lastHoldChange;
            if (since >= windowNanos) {
                heldGone();
            } else {
                scheduleRelease(windowNanos - since);
            }
            return List.of();
        }
        int before = held.size();
        List<Endpoint> gone = new ArrayList<>();
        if (quiet >= windowNanos && !session.disturbed(windowNanos)) {
            gone.addAll(held.keySet());
            held.clear();
        } else {
            held.values().removeIf(h -> {
                boolean due = t - h.since() >= 3 * windowNanos;
                if (due) {
                    gone.add(h.instance().endpoint());
                }
                return due;
            });
        }
        boolean released = !gone.isEmpty();
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
            return gone;
        }
        long oldest = Long.MAX_VALUE;
        for (Held h : held.values()) {
            oldest = Math.min(oldest, 3 * windowNanos - (t - h.since()));
        }
        scheduleRelease(
                Math.max(1_000_000, Math.min(oldest, windowNanos - quiet > 0 ? windowNanos - quiet : windowNanos)));
        return gone;
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
