package io.xrpc.registry.zookeeper.discover;

import io.xrpc.common.Endpoint;
import io.xrpc.registry.ServiceInstance;
import java.util.Arrays;
import java.util.List;

/**
 * A provider list kept for changes one address at a time: the list itself, a {@link ChunkedList}
 * replaced (never changed) on every change so that a published list can be a view of it, and
 * where each address is in it, an open-addressing table of positions (-1: empty) at most three
 * quarters full, about 8 bytes per provider. An arrival or a departure finds its place in O(1)
 * and copies about P/64 + 128 references. Not thread-safe: its {@link ProviderList} guards it.
 */
final class AddressIndex {
    private ChunkedList<ServiceInstance> listed = ChunkedList.empty();
    private int[] slots = emptySlots(16);

    /** The list now; it never changes, later changes make a new one. */
    ChunkedList<ServiceInstance> list() {
        return listed;
    }

    int size() {
        return listed.size();
    }

    boolean isEmpty() {
        return listed.isEmpty();
    }

    /** The whole list is {@code next} now. O(list). */
    void replaceAll(List<ServiceInstance> next) {
        listed = next.isEmpty() ? ChunkedList.empty() : ChunkedList.of(next);
        index();
    }

    /** Lists {@code i} in its address's place, or at the end; whether anything changed. */
    boolean put(ServiceInstance i) {
        int slot = slotOf(i.endpoint());
        if (slot >= 0) {
            int at = slots[slot];
            if (listed.get(at).equals(i)) {
                return false;
            }
            listed = listed.with(at, i);
        } else {
            listed = listed.plus(i);
            if ((listed.size() << 2) > slots.length * 3) {
                index(); // grown past three quarters: a table twice the size
            } else {
                slots[-slot - 1] = listed.size() - 1;
            }
        }
        return true;
    }

    /**
     * Takes {@code e} out of the list, the last entry taking its place (the new list shares every
     * chunk but two with the last); returns what it was, or null when it was not listed.
     */
    ServiceInstance remove(Endpoint e) {
        int slot = slotOf(e);
        if (slot < 0) {
            return null;
        }
        int at = slots[slot];
        int last = listed.size() - 1;
        ServiceInstance gone = listed.get(at);
        ChunkedList<ServiceInstance> next = listed.minusSwapped(at);
        deleteSlot(slot);
        if (at != last) {
            slots[slotOf(listed.get(last).endpoint())] = at;
        }
        listed = next;
        return gone;
    }

    private static int[] emptySlots(int n) {
        int[] t = new int[n];
        Arrays.fill(t, -1);
        return t;
    }

    private int home(Endpoint e) {
        int h = e.hashCode();
        return (h ^ (h >>> 16)) & (slots.length - 1);
    }

    /** The slot holding {@code e}'s position, or {@code -(free slot) - 1} when it is not listed. */
    private int slotOf(Endpoint e) {
        int mask = slots.length - 1;
        for (int h = home(e); ; h = (h + 1) & mask) {
            int at = slots[h];
            if (at < 0) {
                return -h - 1;
            }
            if (listed.get(at).endpoint().equals(e)) {
                return h;
            }
        }
    }

    /** Empties slot {@code i}, moving back the entries after it that would no longer be found. */
    private void deleteSlot(int i) {
        int mask = slots.length - 1;
        for (int j = (i + 1) & mask; slots[j] >= 0; j = (j + 1) & mask) {
            int k = home(listed.get(slots[j]).endpoint());
            boolean stays = i <= j ? i < k && k <= j : i < k || k <= j;
            if (!stays) {
                slots[i] = slots[j];
                i = j;
            }
        }
        slots[i] = -1;
    }

    /** Builds {@link #slots} for {@link #listed} anew. */
    private void index() {
        int size = 16;
        while (size * 3 < (listed.size() << 2)) {
            size <<= 1;
        }
        slots = emptySlots(size);
        for (int at = 0; at < listed.size(); at++) {
            int s = slotOf(listed.get(at).endpoint());
            if (s < 0) {
                slots[-s - 1] = at;
            }
        }
    }
}
