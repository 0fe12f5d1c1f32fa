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
    /** Revisions kept per application beyond those in use (a deploy brings one, a rollback an old one). */
    private static final int SPARE_REVISIONS = 8;

    /** What the directory feeds: one subscription's list. Called on the directory's thread. */
    interface Target {
        ServiceKey key();

        /** An instance arrived, or changed what it says of the service. */
        void arrived(ServiceInstance instance);

        /** An instance left; {@code guarded}: through the shrink guard (false: no longer believed). */
        void departed(Endpoint endpoint, boolean guarded);

        /** The first list is known (perhaps empty): the subscription may return. */
        void ready();
    }

    /** What the directory needs of its registry. */
    interface Trust {
        /** Whether the node's ACL (read with {@code stat}) lets only trusted identities add to it. */
        boolean believe(List<org.apache.zookeeper.data.ACL> acl, Stat stat);

        boolean secured();

        String identity();
    }

    private final CuratorFramework client;
    private final String root;
    private final ExecutorService thread;
    private final Trust trust;
    private final Map<String, MappingWatch> mappings = new HashMap<>();
    private final Map<String, AppWatch> apps = new HashMap<>();

    InstanceDirectory(CuratorFramework client, String root, ExecutorService thread, Trust trust) {
        this.client = client;
        this.root = root;
        this.thread = thread;
        this.trust = trust;
    }

    /** Starts following {@code t}'s service; {@link Target#ready()} once its first list is known. */
    void attach(Target t) {
        thread.execute(() -> {
            try {
                MappingWatch m = mappings.computeIfAbsent(t.key().interfaceName(), MappingWatch::new);
                m.targets.add(t);
                if (!m.read) {
                    m.read();
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

    /** Stops feeding {@code t}; an application no target needs any more is no longer watched. */
    void detach(Target t) {
        thread.execute(() -> {
            MappingWatch m = mappings.get(t.key().interfaceName());
            if (m == null || !m.targets.remove(t)) {
                return;
            }
            for (String a : m.apps) {
                AppWatch w = apps.get(a);
                if (w != null && w.targets.remove(t) && w.targets.isEmpty()) {
                    apps.remove(a);
                    w.stop();
                }
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

    /** Instances known, over all applications followed: for describe() and tests. */
    int knownInstances() {
        try {
            return thread.submit(() -> apps.values().stream().mapToInt(w -> w.members.size()).sum()).get();
        } catch (Exception e) {
            return -1;
        }
    }

    private static boolean validApp(String app) {
        return app.matches("[A-Za-z0-9._-]{1,100}") && !app.startsWith(".");
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
                        if (mappings.get(iface) == this) {
                            read();
                        }
                    });
                }
            };
        }

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
                    }
                    return;
                } catch (Exception e) {
                    throw new IllegalStateException("cannot watch " + path, e);
                }
            } catch (Exception e) {
                throw new IllegalStateException("cannot read " + path, e);
            }
            read = true;
            for (String a : names) {
                if (this.apps.contains(a) || !validApp(a)) {
                    continue;
                }
                if (this.apps.size() >= MAX_APPS_PER_INTERFACE) {
                    if (!capLogged) {
                        capLogged = true;
                        log.error("{} lists {} applications serving {}; following the first {} only (is someone"
                                + " writing the registry who should not? see docs/REGISTRY.md)", path, names.size(),
                                iface, MAX_APPS_PER_INTERFACE);
                    }
                    break;
                }
                this.apps.add(a);
                AppWatch w = InstanceDirectory.this.apps.get(a);
                if (w == null) {
                    w = new AppWatch(a);
                    try {
                        w.watch();
                        w.resync();
                    } catch (Exception e) {
                        log.warn("Could not read the instances of application {} yet; read again on reconnecting", a, e);
                    }
                    InstanceDirectory.this.apps.put(a, w);
                }
                for (Target t : targets) {
                    w.attach(t);
                }
            }
        }
    }

    /** The instances of one application, by address, with the revision each serves. */
    private final class AppWatch {
        final String app;
        final String dir;
        final Map<Endpoint, NodeCodec.Revision> members = new HashMap<>();
        final Map<String, NodeCodec.Revision> revisions = new HashMap<>();
        final List<Target> targets = new ArrayList<>();
        /** Whether the instances node's ACL was found to let only trusted identities add to it. */
        boolean believed;
        long checkedCzxid = -2;
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
                client.watchers().remove(watcher).ofType(Watcher.WatcherType.Any).quietly().inBackground().forPath(dir);
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
            for (Map.Entry<Endpoint, NodeCodec.Revision> m : members.entrySet()) {
                ServiceInstance i = m.getValue().instance(t.key(), m.getKey());
                if (i != null) {
                    t.arrived(i);
                }
            }
        }

        /** Reads the children once and applies what differs from what is known. */
        void resync() throws Exception {
            List<String> names;
            Stat dirStat = new Stat();
            try {
                names = client.getChildren().storingStatIn(dirStat).forPath(dir);
            } catch (KeeperException.NoNodeException none) {
                names = List.of();
                dirStat = null;
            }
            checkTrust(dirStat);
            Map<Endpoint, String> now = new HashMap<>(names.size() * 2);
            for (String n : names) {
                Endpoint e = NodeCodec.instanceEndpoint(n);
                if (e != null) {
                    now.put(e, NodeCodec.instanceRevision(n));
                }
            }
            for (Endpoint e : new ArrayList<>(members.keySet())) {
                if (!now.containsKey(e)) {
                    remove(e, null);
                }
            }
            now.forEach(this::set);
            revisions.values().removeIf(r -> revisions.size() > SPARE_REVISIONS && !members.containsValue(r));
        }

        /**
         * With credentials, believes the instances only when the node's ACL lets nobody else add to
         * it; checked again when the node is made anew (a new czxid).
         */
        private void checkTrust(Stat dirStat) throws Exception {
            if (!trust.secured() || dirStat == null || dirStat.getCzxid() == checkedCzxid) {
                return;
            }
            Stat st = new Stat();
            List<org.apache.zookeeper.data.ACL> acl = client.getACL().storingStatIn(st).forPath(dir);
            boolean now = trust.believe(acl, st);
            checkedCzxid = st.getCzxid();
            if (now == believed) {
                return;
            }
            believed = now;
            if (!now) {
                log.error("Not calling the instances of application {} listed under {}: its ACL ({}, changed {} times"
                        + " since it was made) does not prove that only {} wrote there. A provider with these"
                        + " credentials makes it anew when it registers (docs/REGISTRY.md)", app, dir,
                        ZookeeperAcl.describe(acl), st.getAversion(), trust.identity());
            }
            members.forEach((e, r) -> {
                for (Target t : targets) {
                    ServiceInstance i = r.instance(t.key(), e);
                    if (i == null) {
                        continue;
                    }
                    if (now) {
                        t.arrived(i);
                    } else {
                        t.departed(e, false);
                    }
                }
            });
        }

        void onEvent(WatchedEvent event) throws RuntimeException {
            String p = event.getPath();
            if (p == null || event.getType() == Watcher.Event.EventType.None) {
                return;
            }
            try {
                if (p.equals(dir)) {
                    if (event.getType() != Watcher.Event.EventType.NodeDataChanged) {
                        resync(); // made anew, or removed: its ACL and children again
                    }
                    return;
                }
                if (!p.startsWith(dir) || p.charAt(dir.length()) != '/' || p.indexOf('/', dir.length() + 1) >= 0) {
                    return;
                }
                String name = p.substring(dir.length() + 1);
                Endpoint e = NodeCodec.instanceEndpoint(name);
                if (e == null) {
                    return;
                }
                if (event.getType() == Watcher.Event.EventType.NodeCreated) {
                    set(e, NodeCodec.instanceRevision(name));
                } else if (event.getType() == Watcher.Event.EventType.NodeDeleted) {
                    remove(e, NodeCodec.instanceRevision(name));
                }
            } catch (Exception ex) {
                log.warn("Could not apply {} {} yet; read again on reconnecting", event.getType(), p, ex);
            }
        }

        /** {@code e} serves {@code revision} now. */
        private void set(Endpoint e, String revision) {
            NodeCodec.Revision old = members.get(e);
            if (old != null && old.id().equals(revision)) {
                return;
            }
            NodeCodec.Revision r = revision(revision);
            if (r == null) {
                if (old != null) {
                    remove(e, null);
                }
                return;
            }
            members.put(e, r);
            if (!believed) {
                return;
            }
            for (Target t : targets) {
                ServiceInstance i = r.instance(t.key(), e);
                if (i != null) {
                    t.arrived(i);
                } else if (old != null && old.services().containsKey(t.key())) {
                    t.departed(e, true);
                }
            }
        }

        /** {@code e} left; {@code revision}: only if it is still the one known (null: whatever it is). */
        private void remove(Endpoint e, String revision) {
            NodeCodec.Revision r = members.get(e);
            if (r == null || revision != null && !r.id().equals(revision)) {
                return; // an older node of an instance that moved to a new revision
            }
            members.remove(e);
            if (!believed) {
                return;
            }
            for (Target t : targets) {
                if (r.services().containsKey(t.key())) {
                    t.departed(e, true);
                }
            }
        }

        /** The revision's services: read once, then from memory; null when unreadable (logged). */
        private NodeCodec.Revision revision(String id) {
            NodeCodec.Revision r = revisions.get(id);
            if (r != null) {
                return r;
            }
            String path = NodeCodec.revisionPath(root, app, id);
            try {
                r = NodeCodec.decodeRevision(id, client.getData().forPath(path));
            } catch (KeeperException.NoNodeException none) {
                log.warn("Ignoring instances of {} at revision {}: {} does not exist", app, id, path);
                return null;
            } catch (Exception e) {
                log.error("Ignoring instances of {} at revision {}: {} is unreadable ({})", app, id, path, e.getMessage());
                return null;
            }
            revisions.put(id, r);
            return r;
        }
    }
}
