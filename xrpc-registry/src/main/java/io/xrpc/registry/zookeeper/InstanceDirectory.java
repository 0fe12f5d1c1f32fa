package io.xrpc.registry.zookeeper;

import io.xrpc.common.Endpoint;
import io.xrpc.common.ServiceKey;
import io.xrpc.registry.ServiceInstance;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorWatcher;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A consumer's view of the per-instance layout: which applications serve each interface it
 * follows ({@code {root}/mapping/{interface}}), and the instances of those applications, each
 * followed through one persistent recursive watch on its {@code instances} node and applied one
 * event at a time. An instance node's name holds its address and revision, so an arrival or a
 * departure costs no read; a revision's services are read once per application and kept while an
 * instance uses them. A reconnect reads each application's children once and applies the
 * difference, rather than every node again.
 *
 * <p>Everything here runs on one thread, the executor given, so it needs no lock; the targets it
 * feeds take their own.
 */
final class InstanceDirectory {
    private static final Logger log = LoggerFactory.getLogger(InstanceDirectory.class);
    /**
     * The most applications followed for one interface. An entry in the mapping costs a consumer a
     * watch and a read; without credentials anyone can add entries, so their number is bounded.
     */
    static final int MAX_APPS_PER_INTERFACE = 64;
    /** Entries of one mapping node looked at per read: beyond them, someone is filling it. */
    static final int MAX_MAPPING_ENTRIES = 1_000;
    /** Instances followed per application: about what one 1 MB reply of ZooKeeper can list. */
    static final int MAX_INSTANCES_PER_APP = 20_000;
    /** How long a revision that could not be read is not asked for again. */
    private static final long BAD_REVISION_RETRY_NANOS = TimeUnit.SECONDS.toNanos(30);

    /** What the directory feeds: one subscription's list. Called on the directory's thread. */
    interface Target {
        ServiceKey key();

        /** An instance arrived, or changed what it says of the service. */
        void arrived(ServiceInstance instance);

        /** Many arrived at once (a subscription joining an application already followed): one list published. */
        void arrivedAll(List<ServiceInstance> instances);

        /** An instance left; {@code guarded}: through the shrink guard (false: no longer believed). */
        void departed(Endpoint endpoint, boolean guarded);

        /** The first list is known (perhaps empty): the subscription may return. */
        void ready();
    }

    /** What the directory needs of its registry. */
    interface Trust {
        /** Whether the node's ACL (read with {@code stat}) lets only trusted identities add to it. */
        boolean believe(List<org.apache.zookeeper.data.ACL> acl, Stat stat);

        /** Whether instances are believed only under a node only trusted identities may add to. */
        boolean secured();

        String identity();

        /** A node read without verifying (a consumer that trusts anyone): its ACL, to warn if it is not open. */
        default void unverified(String path, List<org.apache.zookeeper.data.ACL> acl) {
        }
    }

    private final CuratorFramework client;
    private final String root;
    private final ExecutorService thread;
    /** Schedules the second look at an application whose revision could not be read. */
    private final java.util.concurrent.ScheduledExecutorService timer;
    private final Trust trust;
    private final Map<String, MappingWatch> mappings = new HashMap<>();
    private final Map<String, AppWatch> apps = new HashMap<>();
    private volatile boolean closed;

    InstanceDirectory(CuratorFramework client, String root, ExecutorService thread,
                      java.util.concurrent.ScheduledExecutorService timer, Trust trust) {
        this.client = client;
        this.root = root;
        this.thread = thread;
        this.timer = timer;
        this.trust = trust;
    }

    /** Starts following {@code t}'s service; {@link Target#ready()} once its first list is known. */
    void attach(Target t) {
        thread.execute(() -> {
            try {
                MappingWatch m = mappings.computeIfAbsent(t.key().interfaceName(), MappingWatch::new);
                m.targets.add(t);
                if (!m.read) {
                    if (connected()) { // else the reconnect reads it: Curator would block here through its retries
                        m.read();
                    }
                } else {
                    for (String a : m.apps) {
                        apps.get(a).attach(t);
                    }
                }
            } catch (RuntimeException e) {
                log.warn("Could not read the providers of {} yet; read again on reconnecting", t.key(), e);
            } finally {
                t.ready();
            }
        });
    }

    /** The registry is closing: its session ends, which removes every watch; nothing more to do. */
    void close() {
        closed = true;
    }

    /** Stops feeding {@code t}; an application no target needs any more is no longer watched. */
    void detach(Target t) {
        if (closed) {
            return;
        }
        thread.execute(() -> {
            MappingWatch m = mappings.get(t.key().interfaceName());
            if (m == null || !m.targets.remove(t)) {
                return;
            }
            for (String a : m.apps) {
                unfollow(a, t);
            }
            if (m.targets.isEmpty()) {
                mappings.remove(m.iface);
            }
        });
    }

    /**
     * After a reconnect: what may have changed while disconnected is read once per application
     * (its children, one request) and per interface, and the watches are set again (a new session
     * has none).
     */
    void resync() {
        thread.execute(() -> {
            if (!connected()) {
                return; // a later reconnect comes
            }
            for (MappingWatch m : new ArrayList<>(mappings.values())) {
                try {
                    m.read();
                } catch (RuntimeException e) {
                    log.warn("Could not read the applications serving {} again yet", m.iface, e);
                }
            }
            for (AppWatch w : new ArrayList<>(apps.values())) {
                try {
                    w.watch();
                    w.resync();
                } catch (Exception e) {
                    log.warn("Could not read the instances of application {} again yet", w.app, e);
                }
            }
        });
    }

    /** Instances known, over all applications followed, and how many applications: for describe() and tests. */
    int[] followed() {
        try {
            // Bounded: describe() must answer while the directory's thread waits on ZooKeeper.
            return thread.submit(() -> new int[] {apps.values().stream().mapToInt(w -> w.members.size()).sum(),
                    apps.size()}).get(1, TimeUnit.SECONDS);
        } catch (Exception e) {
            return new int[] {-1, -1};
        }
    }

    /**
     * {@code e} no longer serves {@code t}'s service through application {@code from}; another
     * application {@code t} follows may list the same address (a reused IP), and then keeps it.
     */
    private void depart(Target t, Endpoint e, boolean guarded, AppWatch from) {
        MappingWatch m = mappings.get(t.key().interfaceName());
        for (String name : m == null ? Set.<String>of() : m.apps) { // the applications t can follow, not all
            AppWatch w = apps.get(name);
            if (w != null && w != from && w.believed && w.targets.contains(t)) {
                Member other = w.members.get(e);
                ServiceInstance i = other == null ? null : other.revision.instance(t.key(), e);
                if (i != null) {
                    t.arrived(i);
                    return;
                }
            }
        }
        t.departed(e, guarded);
    }

    private boolean connected() {
        return client.getZookeeperClient().isConnected();
    }

    /** {@code t} no longer follows application {@code a}; nobody following it any more, it is no longer watched. */
    private void unfollow(String a, Target t) {
        AppWatch w = apps.get(a);
        if (w != null && w.targets.remove(t) && w.targets.isEmpty()) {
            apps.remove(a);
            w.stop();
        }
    }

    /** Which applications serve one interface: the children of its mapping node, watched. */
    private final class MappingWatch {
        final String iface;
        final String path;
        final Set<String> apps = new LinkedHashSet<>();
        final List<Target> targets = new ArrayList<>();
        boolean read;
        boolean capLogged;
        final CuratorWatcher watcher;

        MappingWatch(String iface) {
            this.iface = iface;
            this.path = NodeCodec.mappingPath(root, iface);
            this.watcher = event -> {
                if (event.getType() != Watcher.Event.EventType.None) {
                    thread.execute(() -> {
                        if (mappings.get(iface) == this && connected()) {
                            try {
                                read();
                            } catch (RuntimeException e) {
                                log.warn("Could not read the applications serving {} again yet; read again on"
                                        + " reconnecting", iface, e);
                            }
                        }
                    });
                }
            };
        }

        /**
         * Reads which applications serve the interface, follows the new ones, and stops following
         * those no longer listed. With credentials an application counts only once its instances
         * node proves to be written by trusted identities, so entries anyone added cannot crowd
         * out the real ones.
         */
        void read() {
            List<String> names;
            try {
                names = client.getChildren().usingWatcher(watcher).forPath(path);
            } catch (KeeperException.NoNodeException none) {
                try {
                    // Told when the first provider of the interface writes it.
                    if (client.checkExists().usingWatcher(watcher).forPath(path) != null) {
                        read();
                    } else {
                        read = true;
                        apply(List.of());
                    }
                    return;
                } catch (Exception e) {
                    throw new IllegalStateException("cannot watch " + path, e);
                }
            } catch (Exception e) {
                throw new IllegalStateException("cannot read " + path, e);
            }
            read = true;
            apply(names);
        }

        private void apply(List<String> names) {
            Set<String> listed = new LinkedHashSet<>();
            int looked = 0;
            for (String a : names) {
                if (listed.size() >= MAX_APPS_PER_INTERFACE || looked++ >= MAX_MAPPING_ENTRIES) {
                    if (!capLogged) {
                        capLogged = true;
                        log.error("{} lists {} applications serving {}; following {} of them (is someone writing the"
                                + " registry who should not? see docs/REGISTRY.md)", path, names.size(), iface,
                                listed.size());
                    }
                    break;
                }
                if (!NodeCodec.isApplicationName(a)) {
                    continue;
                }
                AppWatch w = InstanceDirectory.this.apps.get(a);
                if (w == null) {
                    w = new AppWatch(a);
                    try {
                        w.watch();
                        w.resync();
                    } catch (Exception e) {
                        log.warn("Could not read the instances of application {} yet; read again on reconnecting", a, e);
                    }
                    if (!w.believed) {
                        w.stop(); // not followed, not counted; looked at again on the next read
                        continue;
                    }
                    InstanceDirectory.this.apps.put(a, w);
                } else if (!w.believed) {
                    continue;
                }
                listed.add(a);
            }
            for (String gone : new ArrayList<>(this.apps)) {
                if (!listed.contains(gone)) {
                    this.apps.remove(gone);
                    for (Target t : targets) {
                        AppWatch w = InstanceDirectory.this.apps.get(gone);
                        if (w != null) {
                            w.departAll(t);
                        }
                        unfollow(gone, t);
                    }
                }
            }
            for (String a : listed) {
                this.apps.add(a);
                AppWatch w = InstanceDirectory.this.apps.get(a);
                for (Target t : targets) {
                    w.attach(t);
                }
            }
        }
    }

    /**
     * What the directory knows of one address: the revision it serves, and the names of any other
     * nodes listing the same address (a revision change in progress: the provider creates the new
     * node before it deletes the old one; or two processes advertising one address).
     */
    private static final class Member {
        NodeCodec.Revision revision;
        /** Revisions of other nodes of this address, each once; null (almost always) when there are none. */
        private List<String> others;

        Member(NodeCodec.Revision revision) {
            this.revision = revision;
        }

        void addOther(String r) {
            if (others == null) {
                others = new ArrayList<>(1);
            }
            if (!others.contains(r)) {
                others.add(r);
            }
        }

        void removeOther(String r) {
            if (others != null && others.remove(r) && others.isEmpty()) {
                others = null;
            }
        }

        void setOthers(List<String> all, String current) {
            others = null;
            for (String r : all) {
                if (!r.equals(current)) {
                    addOther(r);
                }
            }
        }

        /** Takes one other node's revision out, or null when there is none. */
        String takeOther() {
            if (others == null) {
                return null;
            }
            String r = others.remove(others.size() - 1);
            if (others.isEmpty()) {
                others = null;
            }
            return r;
        }
    }

    /** A revision and how many addresses serve it: dropped when none does. */
    private static final class Used {
        final NodeCodec.Revision revision;
        int count;

        Used(NodeCodec.Revision revision) {
            this.revision = revision;
        }
    }

    /** The instances of one application, by address, with the revision each serves. */
    private final class AppWatch {
        final String app;
        final String dir;
        final Map<Endpoint, Member> members = new HashMap<>();
        final Map<String, Used> revisions = new HashMap<>();
        /** Revisions that could not be read, and when (nanoTime): not asked for again for a while. */
        final Map<String, Long> unreadable = new HashMap<>();
        final List<Target> targets = new ArrayList<>();
        /** Whether the instances node's ACL was found to let only trusted identities add to it. */
        boolean believed;
        long checkedCzxid = -2;
        int checkedAversion = -2;
        boolean capLogged;
        boolean lookedAtAcl;
        final Watcher watcher;
        boolean stopped;

        AppWatch(String app) {
            this.app = app;
            this.dir = NodeCodec.instancesPath(root, app);
            this.believed = !trust.secured();
            this.watcher = event -> thread.execute(() -> {
                if (!stopped) {
                    onEvent(event);
                }
            });
        }

        void watch() throws Exception {
            client.watchers().add().withMode(AddWatchMode.PERSISTENT_RECURSIVE).usingWatcher(watcher).forPath(dir);
        }

        void stop() {
            stopped = true;
            try {
                // removeAll: removing one watcher only asks the server whether it has the watch.
                // This directory is the only one to watch the path in this session.
                client.watchers().removeAll().ofType(Watcher.WatcherType.PersistentRecursive).quietly().inBackground()
                        .forPath(dir);
            } catch (Exception e) {
                log.debug("Could not remove the watch on {}", dir, e);
            }
        }

        void attach(Target t) {
            if (targets.contains(t)) {
                return;
            }
            targets.add(t);
            if (!believed) {
                return;
            }
            List<ServiceInstance> all = new ArrayList<>(members.size());
            members.forEach((e, m) -> {
                ServiceInstance i = m.revision.instance(t.key(), e);
                if (i != null) {
                    all.add(i);
                }
            });
            if (!all.isEmpty()) {
                t.arrivedAll(all);
            }
        }

        /** {@code t} stops following this application: what it had from here leaves its list. */
        void departAll(Target t) {
            if (!believed) {
                return;
            }
            members.forEach((e, m) -> {
                if (m.revision.services().containsKey(t.key())) {
                    depart(t, e, true, this);
                }
            });
        }

        /** Reads the children once and applies what differs from what is known. */
        void resync() throws Exception {
            Stat dirStat = new Stat();
            List<String> names;
            try {
                names = client.getChildren().storingStatIn(dirStat).forPath(dir);
            } catch (KeeperException.NoNodeException none) {
                names = List.of();
                dirStat = null;
            }
            checkTrust(dirStat);
            if (!believed) {
                return; // nothing read of what cannot be attributed
            }
            Map<Endpoint, List<String>> now = new HashMap<>(names.size() * 2);
            for (String n : names) {
                Endpoint e = NodeCodec.instanceEndpoint(n);
                if (e != null) {
                    now.computeIfAbsent(e, x -> new ArrayList<>(1)).add(NodeCodec.instanceRevision(n));
                }
            }
            for (Endpoint e : new ArrayList<>(members.keySet())) {
                if (!now.containsKey(e)) {
                    drop(e, true);
                }
            }
            now.forEach((e, revs) -> {
                Member m = members.get(e);
                // The one known stays current when it is still there; else the first readable.
                String current = null;
                if (m != null && revs.contains(m.revision.id())) {
                    current = m.revision.id();
                } else {
                    for (String r : revs) {
                        set(e, r);
                        Member after = members.get(e);
                        if (after != null && after.revision.id().equals(r)) {
                            current = r;
                            break;
                        }
                    }
                }
                if (current == null) {
                    drop(e, true); // none of its nodes can be read now (a second look is scheduled)
                    return;
                }
                members.get(e).setOthers(revs, current);
            });
        }

        /**
         * With credentials, believes the instances only when the node's ACL lets nobody else add to
         * it; checked again when the node is made anew or its ACL changes.
         */
        private void checkTrust(Stat dirStat) throws Exception {
            if (!trust.secured() && dirStat != null && !lookedAtAcl) {
                lookedAtAcl = true; // once: to tell a consumer that believes anyone that someone in particular writes here
                try {
                    trust.unverified(dir, client.getACL().forPath(dir));
                } catch (Exception e) {
                    lookedAtAcl = false; // gone or unreadable now: a warning is not worth a failed list
                }
            }
            if (!trust.secured() || dirStat == null
                    || dirStat.getCzxid() == checkedCzxid && dirStat.getAversion() == checkedAversion) {
                return;
            }
            Stat st = new Stat();
            List<org.apache.zookeeper.data.ACL> acl = client.getACL().storingStatIn(st).forPath(dir);
            boolean now = trust.believe(acl, st);
            checkedCzxid = st.getCzxid();
            checkedAversion = st.getAversion();
            if (now == believed) {
                return;
            }
            believed = now;
            if (!now) {
                log.error("Not calling the instances of application {} listed under {}: its ACL ({}, changed {} times"
                        + " since it was made) does not prove that only {} wrote there. A provider with these"
                        + " credentials makes it anew when it registers (docs/REGISTRY.md){}", app, dir,
                        ZookeeperAcl.describe(acl), st.getAversion(), trust.identity(), ZookeeperAcl.hiddenDigests(acl));
                for (Endpoint e : new ArrayList<>(members.keySet())) {
                    drop(e, false);
                }
            }
        }

        void onEvent(WatchedEvent event) {
            String p = event.getPath();
            if (p == null || event.getType() == Watcher.Event.EventType.None) {
                return;
            }
            try {
                if (p.equals(dir)) {
                    if (event.getType() != Watcher.Event.EventType.NodeDataChanged && connected()) {
                        resync(); // made anew, or removed: its ACL and children again
                    }
                    return;
                }
                if (!believed || !p.startsWith(dir) || p.length() <= dir.length() || p.charAt(dir.length()) != '/'
                        || p.indexOf('/', dir.length() + 1) >= 0) {
                    return;
                }
                String name = p.substring(dir.length() + 1);
                Endpoint e = NodeCodec.instanceEndpoint(name);
                if (e == null) {
                    return;
                }
                String revision = NodeCodec.instanceRevision(name);
                if (event.getType() == Watcher.Event.EventType.NodeCreated) {
                    Member m = members.get(e);
                    String before = m == null ? null : m.revision.id();
                    set(e, revision);
                    if (m != null) {
                        // The newest node of the address is current (or, unreadable, known as another
                        // node of it); the older stays known until deleted. Replayed after a re-read,
                        // a creation of the current node changes nothing.
                        m.removeOther(m.revision.id());
                        if (!before.equals(revision)) {
                            m.addOther(m.revision.id().equals(revision) ? before : revision);
                        }
                    }
                } else if (event.getType() == Watcher.Event.EventType.NodeDeleted) {
                    deleted(e, revision);
                }
            } catch (Exception ex) {
                log.warn("Could not apply {} {} yet; read again on reconnecting", event.getType(), p, ex);
            }
        }

        /** {@code e} serves {@code revision} now. */
        private void set(Endpoint e, String revision) {
            Member m = members.get(e);
            if (m != null && m.revision.id().equals(revision)) {
                return;
            }
            if (m == null && members.size() >= MAX_INSTANCES_PER_APP) {
                if (!capLogged) {
                    capLogged = true;
                    log.error("Application {} lists more than {} instances; ignoring the rest", app, MAX_INSTANCES_PER_APP);
                }
                return;
            }
            NodeCodec.Revision r = revision(revision);
            if (r == null) {
                return; // unreadable: the address keeps what it served, or stays unknown
            }
            NodeCodec.Revision old = m == null ? null : m.revision;
            if (m == null) {
                members.put(e, new Member(r));
            } else {
                m.revision = r;
                release(old);
            }
            for (Target t : targets) {
                ServiceInstance i = r.instance(t.key(), e);
                if (i != null) {
                    t.arrived(i);
                } else if (old != null && old.services().containsKey(t.key())) {
                    depart(t, e, true, this);
                }
            }
        }

        /** The node of {@code e} at {@code revision} was deleted: another node of the address takes over, or it left. */
        private void deleted(Endpoint e, String revision) {
            Member m = members.get(e);
            if (m == null) {
                return;
            }
            if (!m.revision.id().equals(revision)) {
                m.removeOther(revision); // the older node of a revision change: nothing changes for consumers
                return;
            }
            for (String next = m.takeOther(); next != null; next = m.takeOther()) {
                if (next.equals(revision)) {
                    continue; // the deleted node itself
                }
                set(e, next);
                if (members.get(e) == m && m.revision.id().equals(next)) {
                    return;
                }
            }
            drop(e, true);
        }

        /** {@code e} left; {@code guarded}: through the shrink guard (false: no longer believed). */
        private void drop(Endpoint e, boolean guarded) {
            Member m = members.remove(e);
            if (m == null) {
                return;
            }
            release(m.revision);
            for (Target t : targets) {
                if (m.revision.services().containsKey(t.key())) {
                    depart(t, e, guarded, this);
                }
            }
        }

        private void release(NodeCodec.Revision r) {
            Used u = revisions.get(r.id());
            if (u != null && --u.count <= 0) {
                revisions.remove(r.id());
            }
        }

        /** Reads the application again once an unreadable revision may be readable (30 s). */
        private void lookAgain() {
            try {
                timer.schedule(() -> thread.execute(() -> {
                    if (!stopped && connected()) {
                        try {
                            resync();
                        } catch (Exception e) {
                            log.warn("Could not read the instances of application {} again yet", app, e);
                        }
                    }
                }), BAD_REVISION_RETRY_NANOS + TimeUnit.SECONDS.toNanos(1), TimeUnit.NANOSECONDS);
            } catch (java.util.concurrent.RejectedExecutionException closed) {
                // the registry is closing
            }
        }

        /** The revision's services, counted as used once more: read once, then from memory; null when unreadable. */
        private NodeCodec.Revision revision(String id) {
            Used u = revisions.get(id);
            if (u == null) {
                Long failed = unreadable.get(id);
                if (failed != null && System.nanoTime() - failed < BAD_REVISION_RETRY_NANOS) {
                    return null;
                }
                String path = NodeCodec.revisionPath(root, app, id);
                try {
                    u = new Used(NodeCodec.decodeRevision(id, client.getData().forPath(path)));
                    unreadable.remove(id);
                } catch (KeeperException.NoNodeException | IllegalArgumentException wrong) {
                    if (unreadable.size() > 1_000) {
                        unreadable.clear();
                    }
                    if (unreadable.put(id, System.nanoTime()) == null) {
                        log.error("Ignoring instances of {} at revision {}: {} is {} (looked at again in 30 s)", app,
                                id, path, wrong instanceof KeeperException.NoNodeException ? "missing"
                                        : "unreadable: " + wrong.getMessage());
                        lookAgain();
                    }
                    return null;
                } catch (Exception e) {
                    // The connection, most likely: the reconnect reads the application again.
                    log.warn("Could not read revision {} of {} yet", id, app, e);
                    return null;
                }
                revisions.put(id, u);
            }
            u.count++;
            return u.revision;
        }
    }
}
