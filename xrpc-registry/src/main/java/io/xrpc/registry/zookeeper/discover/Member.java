package io.xrpc.registry.zookeeper.discover;

import io.xrpc.common.Endpoint;
import io.xrpc.common.ServiceKey;
import io.xrpc.registry.ServiceInstance;
import io.xrpc.registry.zookeeper.layout.NodeCodec;
import java.util.ArrayList;
import java.util.List;

/**
 * What the directory knows of one address: the revision it serves, the entry its consumers' lists
 * hold for it (one per distinct thing the revision says of its services, almost always one, shared
 * by every list of those services), and the names of any other nodes listing the same address (a
 * revision change in progress: the provider creates the new node before it deletes the old one;
 * or two processes advertising one address). About 32 bytes, and the entry 32 more: what a
 * consumer pays per instance whatever the number of services it follows (docs/REGISTRY.md).
 */
final class Member {
    final Endpoint endpoint;
    private NodeCodec.Revision revision;
    /** The entry of spec 0; {@link #more} holds the rest when the revision says different things of its services. */
    private ServiceInstance entry;

    private ServiceInstance[] more;
    /** Revisions of other nodes of this address, each once; null (almost always) when there are none. */
    private List<String> others;

    Member(Endpoint endpoint, NodeCodec.Revision revision) {
        this.endpoint = endpoint;
        revision(revision);
    }

    NodeCodec.Revision revision() {
        return revision;
    }

    /** Serves {@code r} now; entries equal to the ones it had stay the same objects (the lists hold those). */
    void revision(NodeCodec.Revision r) {
        ServiceInstance oldEntry = entry;
        ServiceInstance[] oldMore = more;
        revision = r;
        int n = r.specs();
        entry = n == 0 ? null : kept(r.shared(0, endpoint), oldEntry, oldMore);
        more = null;
        if (n > 1) {
            more = new ServiceInstance[n - 1];
            for (int k = 1; k < n; k++) {
                more[k - 1] = kept(r.shared(k, endpoint), oldEntry, oldMore);
            }
        }
    }

    private static ServiceInstance kept(ServiceInstance made, ServiceInstance oldEntry, ServiceInstance[] oldMore) {
        if (made.equals(oldEntry)) {
            return oldEntry;
        }
        if (oldMore != null) {
            for (ServiceInstance o : oldMore) {
                if (made.equals(o)) {
                    return o;
                }
            }
        }
        return made;
    }

    /** Whether the revision serves {@code key}. */
    boolean serves(ServiceKey key) {
        return revision.specOf(key) >= 0;
    }

    /** The entry for {@code key}'s lists, or null when the revision does not serve it. */
    ServiceInstance entry(ServiceKey key) {
        int k = revision.specOf(key);
        return k < 0 ? null : k == 0 ? entry : more[k - 1];
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
