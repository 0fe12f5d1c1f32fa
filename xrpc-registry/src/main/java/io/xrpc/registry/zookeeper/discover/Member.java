package io.xrpc.registry.zookeeper.discover;

import io.xrpc.registry.zookeeper.layout.NodeCodec;
import java.util.ArrayList;
import java.util.List;

/**
 * What the directory knows of one address: the revision it serves, and the names of any other
 * nodes listing the same address (a revision change in progress: the provider creates the new
 * node before it deletes the old one; or two processes advertising one address).
 */
final class Member {
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
