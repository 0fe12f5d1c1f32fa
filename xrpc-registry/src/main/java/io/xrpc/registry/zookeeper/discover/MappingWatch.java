package io.xrpc.registry.zookeeper.discover;

import io.xrpc.registry.zookeeper.layout.NodeCodec;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.curator.framework.api.CuratorWatcher;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which applications serve one interface: the children of its mapping node
 * ({@code {root}/mapping/{interface}}), watched. Runs on its {@link InstanceDirectory}'s thread.
 */
final class MappingWatch {
    private static final Logger log = LoggerFactory.getLogger(InstanceDirectory.LOGGER);

    private final InstanceDirectory directory;
    final String iface;
    final String path;
    final Set<String> apps = new LinkedHashSet<>();
    final List<InstanceDirectory.Target> targets = new ArrayList<>();
    boolean read;
    boolean capLogged;
    final CuratorWatcher watcher;

    MappingWatch(InstanceDirectory directory, String iface) {
        this.directory = directory;
        this.iface = iface;
        this.path = NodeCodec.mappingPath(directory.root, iface);
        this.watcher = event -> {
            if (event.getType() != Watcher.Event.EventType.None) {
                directory.thread.execute(() -> {
                    if (directory.mapping(iface) == this && directory.connected()) {
                        try {
                            read();
                        } catch (RuntimeException e) {
                            log.warn(
                                    "Could not read the applications serving {} again yet; read again on"
                                            + " reconnecting",
                                    iface,
                                    e);
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
            names = directory.client.getChildren().usingWatcher(watcher).forPath(path);
        } catch (KeeperException.NoNodeException none) {
            try {
                // Told when the first provider of the interface writes it.
                if (directory.client.checkExists().usingWatcher(watcher).forPath(path) != null) {
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
            if (listed.size() >= InstanceDirectory.MAX_APPS_PER_INTERFACE
                    || looked++ >= InstanceDirectory.MAX_MAPPING_ENTRIES) {
                if (!capLogged) {
                    capLogged = true;
                    log.error(
                            "{} lists {} applications serving {}; following {} of them (is someone writing the"
                                    + " registry who should not? see docs/REGISTRY.md)",
                            path,
                            names.size(),
                            iface,
                            listed.size());
                }
                break;
            }
            if (!NodeCodec.isApplicationName(a)) {
                continue;
            }
            AppWatch w = directory.app(a);
            if (w == null) {
                w = new AppWatch(directory, a);
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
                directory.follow(a, w);
            } else if (!w.believed) {
                continue;
            }
            listed.add(a);
        }
        for (String gone : new ArrayList<>(this.apps)) {
            if (!listed.contains(gone)) {
                this.apps.remove(gone);
                for (InstanceDirectory.Target t : targets) {
                    AppWatch w = directory.app(gone);
                    if (w != null) {
                        w.departAll(t);
                    }
                    directory.unfollow(gone, t);
                }
            }
        }
        for (String a : listed) {
            this.apps.add(a);
            AppWatch w = directory.app(a);
            for (InstanceDirectory.Target t : targets) {
                w.attach(t);
            }
        }
    }
}
