package io.xrpc.registry.zookeeper.discover;

import io.xrpc.common.Endpoint;
import io.xrpc.registry.ServiceInstance;
import io.xrpc.registry.zookeeper.layout.NodeCodec;
import io.xrpc.registry.zookeeper.session.Trust;
import io.xrpc.registry.zookeeper.session.ZookeeperAcl;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.AddWatchMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The instances of one application, by address, with the revision each serves: one persistent
 * recursive watch on its {@code instances} node, applied one event at a time; a revision's
 * services read once and kept while an instance uses them. Runs on its {@link InstanceDirectory}'s
 * thread.
 */
final class AppWatch {
    private static final Logger log = LoggerFactory.getLogger(InstanceDirectory.LOGGER);
    /** How long a revision that could not be read is not asked for again. */
    private static final long BAD_REVISION_RETRY_NANOS = TimeUnit.SECONDS.toNanos(30);

    /** A revision and how many addresses serve it: dropped when none does. */
    private static final class Used {
        final NodeCodec.Revision revision;
        int count;

        Used(NodeCodec.Revision revision) {
            this.revision = revision;
        }
    }

    private final InstanceDirectory directory;
    private final CuratorFramework client;
    private final Trust trust;
    final String app;
    final String dir;
    final MemberTable members = new MemberTable();
    /** Members whose current node carries the leaving mark: their deletion is a departure. */
    final Set<Endpoint> leaving = new HashSet<>();

    final Map<String, Used> revisions = new HashMap<>();
    /** Revisions that could not be read, and when (nanoTime): not asked for again for a while. */
    final Map<String, Long> unreadable = new HashMap<>();

    final List<InstanceDirectory.Target> targets = new ArrayList<>();
    /** Whether the instances node's ACL was found to let only trusted identities add to it. */
    boolean believed;

    long checkedCzxid = -2;
    int checkedAversion = -2;
    boolean capLogged;
    boolean lookedAtAcl;
    final Watcher watcher;
    boolean stopped;

    AppWatch(InstanceDirectory directory, String app) {
        this.directory = directory;
        this.client = directory.client;
        this.trust = directory.trust;
        this.app = app;
        this.dir = NodeCodec.instancesPath(directory.root, app);
        this.believed = !trust.verifies();
        this.watcher = event -> directory.thread.execute(() -> {
            if (!stopped) {
                onEvent(event);
            }
        });
    }

    void watch() throws Exception {
        client.watchers()
                .add()
                .withMode(AddWatchMode.PERSISTENT_RECURSIVE)
                .usingWatcher(watcher)
                .forPath(dir);
    }

    void stop() {
        stopped = true;
        try {
            // removeAll: removing one watcher only asks the server whether it has the watch.
            // This directory is the only one to watch the path in this session.
            client.watchers()
                    .removeAll()
                    .ofType(Watcher.WatcherType.PersistentRecursive)
                    .quietly()
                    .inBackground()
                    .forPath(dir);
        } catch (Exception e) {
            log.debug("Could not remove the watch on {}", dir, e);
        }
    }

    void attach(InstanceDirectory.Target t) {
        if (targets.contains(t)) {
            return;
        }
        targets.add(t);
        if (!believed) {
            return;
        }
        List<ServiceInstance> all = new ArrayList<>(members.size());
        members.forEach(m -> {
            ServiceInstance i = m.entry(t.key());
            if (i != null) {
                all.add(i);
            }
        });
        if (all.isEmpty()) {
            return;
        }
        for (InstanceDirectory.Target u : targets) {
            // Another service these instances serve alike: one list for both (AddressIndex).
            AddressIndex l = u == t ? null : u.listing();
            if (l != null && t.listing().isEmpty() && l.listsExactly(all)) {
                t.adopt(l);
                return;
            }
        }
        t.arrivedAll(all);
    }

    /** {@code t} stops following this application: what it had from here leaves its list. */
    void departAll(InstanceDirectory.Target t) {
        if (!believed) {
            return;
        }
        members.forEach(m -> {
            if (m.serves(t.key())) {
                directory.depart(t, m.endpoint, true, false, this);
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
        for (Member m : members.all()) {
            if (!now.containsKey(m.endpoint)) {
                // Gone while this consumer was away: its leaving unseen, held as if its session ended.
                drop(m.endpoint, true, !leaving.remove(m.endpoint));
            }
        }
        now.forEach((e, revs) -> {
            Member m = members.get(e);
            // The one known stays current when it is still there; else the first readable.
            String current = null;
            if (m != null && revs.contains(m.revision().id())) {
                current = m.revision().id();
            } else {
                for (String r : revs) {
                    set(e, r);
                    Member after = members.get(e);
                    if (after != null && after.revision().id().equals(r)) {
                        current = r;
                        break;
                    }
                }
            }
            if (current == null) {
                drop(e, true, false); // none of its nodes can be read now (a second look is scheduled)
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
        if (!trust.verifies() && dirStat != null && !lookedAtAcl) {
            lookedAtAcl = true; // once: to tell a consumer that believes anyone that someone in particular writes here
            try {
                trust.warnIfTrustingAnyone(dir, client.getACL().forPath(dir));
            } catch (Exception e) {
                lookedAtAcl = false; // gone or unreadable now: a warning is not worth a failed list
            }
        }
        if (!trust.verifies()
                || dirStat == null
                || dirStat.getCzxid() == checkedCzxid && dirStat.getAversion() == checkedAversion) {
            return;
        }
        Stat st = new Stat();
        List<ACL> acl = client.getACL().storingStatIn(st).forPath(dir);
        boolean now = trust.believes(acl, st.getAversion());
        checkedCzxid = st.getCzxid();
        checkedAversion = st.getAversion();
        if (now == believed) {
            return;
        }
        believed = now;
        if (!now) {
            log.error(
                    "Not calling the instances of application {} listed under {}: its ACL ({}, changed {} times"
                            + " since it was made) does not prove that only {} wrote there. A provider with these"
                            + " credentials makes it anew when it registers (docs/REGISTRY.md){}",
                    app,
                    dir,
                    ZookeeperAcl.describe(acl),
                    st.getAversion(),
                    trust.identity(),
                    ZookeeperAcl.hiddenDigests(acl));
            for (Member m : members.all()) {
                drop(m.endpoint, false, false);
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
                if (event.getType() != Watcher.Event.EventType.NodeDataChanged && directory.connected()) {
                    resync(); // made anew, or removed: its ACL and children again
                }
                return;
            }
            if (!believed
                    || !p.startsWith(dir)
                    || p.length() <= dir.length()
                    || p.charAt(dir.length()) != '/'
                    || p.indexOf('/', dir.length() + 1) >= 0) {
                return;
            }
            String name = p.substring(dir.length() + 1);
            Endpoint e = NodeCodec.instanceEndpoint(name);
            if (e == null) {
                return;
            }
            String revision = NodeCodec.instanceRevision(name);
            if (event.getType() == Watcher.Event.EventType.NodeDataChanged) {
                // An instance node has no data but the leaving mark its provider writes before it
                // deletes the node: what follows is a departure, not a session's end.
                Member m = members.get(e);
                if (m != null && m.revision().id().equals(revision)) {
                    leaving.add(m.endpoint);
                }
            } else if (event.getType() == Watcher.Event.EventType.NodeCreated) {
                Member m = members.get(e);
                String before = m == null ? null : m.revision().id();
                set(e, revision);
                if (m != null) {
                    // The newest node of the address is current (or, unreadable, known as another
                    // node of it); the older stays known until deleted. Replayed after a re-read,
                    // a creation of the current node changes nothing.
                    m.removeOther(m.revision().id());
                    if (!before.equals(revision)) {
                        m.addOther(m.revision().id().equals(revision) ? before : revision);
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
        if (m != null && m.revision().id().equals(revision)) {
            return;
        }
        if (m == null && members.size() >= InstanceDirectory.MAX_INSTANCES_PER_APP) {
            if (!capLogged) {
                capLogged = true;
                log.error(
                        "Application {} lists more than {} instances; ignoring the rest",
                        app,
                        InstanceDirectory.MAX_INSTANCES_PER_APP);
            }
            return;
        }
        NodeCodec.Revision r = revision(revision);
        if (r == null) {
            return; // unreadable: the address keeps what it served, or stays unknown
        }
        NodeCodec.Revision old = m == null ? null : m.revision();
        if (m == null) {
            m = new Member(e, r);
            members.add(m);
        } else {
            m.revision(r);
            release(old);
            leaving.remove(e); // a mark was the old node's
        }
        for (InstanceDirectory.Target t : targets) {
            ServiceInstance i = m.entry(t.key());
            if (i != null) {
                t.arrived(i);
            } else if (old != null && old.services().containsKey(t.key())) {
                directory.depart(t, m.endpoint, true, false, this);
            }
        }
    }

    /** The node of {@code e} at {@code revision} was deleted: another node of the address takes over, or it left. */
    private void deleted(Endpoint e, String revision) {
        Member m = members.get(e);
        if (m == null) {
            return;
        }
        if (!m.revision().id().equals(revision)) {
            m.removeOther(revision); // the older node of a revision change: nothing changes for consumers
            return;
        }
        boolean marked = leaving.remove(e); // the mark was the deleted node's: not another's that takes over
        for (String next = m.takeOther(); next != null; next = m.takeOther()) {
            if (next.equals(revision)) {
                continue; // the deleted node itself
            }
            set(e, next);
            if (members.get(e) == m && m.revision().id().equals(next)) {
                return;
            }
        }
        // Marked before it went (a provider leaving), or gone with its session: then held until it
        // registers again under its next one (ShrinkGuard), never published as a departure.
        drop(e, true, !marked);
    }

    /**
     * {@code e} left; {@code guarded}: through the shrink guard (false: no longer believed);
     * {@code expired}: its node went without its leaving mark.
     */
    private void drop(Endpoint e, boolean guarded, boolean expired) {
        leaving.remove(e);
        Member m = members.remove(e);
        if (m == null) {
            return;
        }
        release(m.revision());
        for (InstanceDirectory.Target t : targets) {
            if (m.serves(t.key())) {
                directory.depart(t, m.endpoint, guarded, expired, this);
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
            directory.timer.schedule(
                    () -> directory.thread.execute(() -> {
                        if (!stopped && directory.connected()) {
                            try {
                                resync();
                            } catch (Exception e) {
                                log.warn("Could not read the instances of application {} again yet", app, e);
                            }
                        }
                    }),
                    BAD_REVISION_RETRY_NANOS + TimeUnit.SECONDS.toNanos(1),
                    TimeUnit.NANOSECONDS);
        } catch (RejectedExecutionException closed) {
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
            String path = NodeCodec.revisionPath(directory.root, app, id);
            try {
                u = new Used(NodeCodec.decodeRevision(id, client.getData().forPath(path)));
                unreadable.remove(id);
            } catch (KeeperException.NoNodeException | IllegalArgumentException wrong) {
                if (unreadable.size() > 1_000) {
                    unreadable.clear();
                }
                if (unreadable.put(id, System.nanoTime()) == null) {
                    log.error(
                            "Ignoring instances of {} at revision {}: {} is {} (looked at again in 30 s)",
                            app,
                            id,
                            path,
                            wrong instanceof KeeperException.NoNodeException
                                    ? "missing"
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
