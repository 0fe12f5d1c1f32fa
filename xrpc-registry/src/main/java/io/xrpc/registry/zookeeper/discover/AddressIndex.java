package io.xrpc.registry.zookeeper.discover;

import io.xrpc.common.Endpoint;
import io.xrpc.registry.ServiceInstance;
import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A provider list kept for changes one address at a time, immutable: the list itself, a
 * {@link ChunkedList} (a published list is a view of it), and where each address is in it, an
 * open-addressing table of positions (-1: empty) at most three quarters full, about 8 bytes per
 * provider. A change makes a new index: it finds its place in O(1), copies about P/64 + 128
 * references of the list and the table's ints (P = 2,000: 16 KB).
 *
 * <p><b>Shared between services.</b> The lists of services that the same instances serve alike
 * (every service of an application, most often) are one index: {@link AppWatch} starts a new
 * subscription on an equal index, and each index remembers its last change and what it made, so
 * that the next list making the same change from the same index takes the same result. A consumer
 * following 20 services of 2,000 instances then holds one list of 2,000 entries, not twenty.
 * The memory is racy by design: a list that misses it makes its own equal index.
 */
final class AddressIndex {
    static final AddressIndex EMPTY = new AddressIndex(ChunkedList.empty(), emptySlots(16));

    /**
     * A change and its result: {@code arg} the instance put, or the address removed. Weakly: the
     * lists that took the result hold it; a memory must not keep every later version of a list
     * alive from an old one (or from {@link #EMPTY}, where every list starts).
     */
    private record Step(Object arg, WeakReference<AddressIndex> result) {}

    private final ChunkedList<ServiceInstance> listed;
    private final int[] slots;
    /** This index's last change (racy, see above). */
    private volatile Step next;

    private AddressIndex(ChunkedList<ServiceInstance> listed, int[] slots) {
        this.listed = listed;
        this.slots = slots;
    }

    /** An index of {@code list}. O(list). */
    static AddressIndex of(List<ServiceInstance> list) {
        return list.isEmpty() ? EMPTY : indexed(ChunkedList.of(list));
    }

    /** The list; it never changes. */
    ChunkedList<ServiceInstance> list() {
        return listed;
    }

    int size() {
        return listed.size();
    }

    boolean isEmpty() {
        return listed.isEmpty();
    }

    /** The entry listed at {@code e}, or null. */
    ServiceInstance get(Endpoint e) {
        int slot = slotOf(slots, listed, e);
        return slot < 0 ? null : listed.get(slots[slot]);
    }

    /** Whether this index lists exactly {@code items} (the same entries, in any order). O(items). */
    boolean listsExactly(List<ServiceInstance> items) {
        if (items.size() != listed.size()) {
            return false;
        }
        for (ServiceInstance i : items) {
            if (get(i.endpoint()) != i) {
                return false;
            }
        }
        return true;
    }

    /** This index with {@code i} in its address's place, or at the end; {@code this} when it is listed so already. */
    AddressIndex put(ServiceInstance i) {
        Step s = next;
        AddressIndex known = s != null && s.arg == i ? s.result.get() : null;
        if (known != null) {
            return known;
        }
        AddressIndex r = putting(i);
        if (r != this) {
            next = new Step(i, new WeakReference<>(r));
        }
        return r;
    }

    private AddressIndex putting(ServiceInstance i) {
        int slot = slotOf(slots, listed, i.endpoint());
        if (slot >= 0) {
            int at = slots[slot];
            if (listed.get(at).equals(i)) {
                return this;
            }
            return new AddressIndex(listed.with(at, i), slots); // same places
        }
        ChunkedList<ServiceInstance> l = listed.plus(i);
        if ((l.size() << 2) > slots.length * 3) {
            return indexed(l); // grown past three quarters: a table twice the size
        }
        int[] t = slots.clone();
        t[-slot - 1] = l.size() - 1;
        return new AddressIndex(l, t);
    }

    /** This index with every one of {@code items} put, made at once (a subscription joining a followed application). */
    AddressIndex putAll(List<ServiceInstance> items) {
        if (items.size() <= Math.max(16, listed.size() >> 4)) {
            AddressIndex r = this;
            for (ServiceInstance i : items) {
                r = r.put(i);
            }
            return r;
        }
        List<ServiceInstance> all = new ArrayList<>(listed.size() + items.size());
        all.addAll(listed);
        Map<Endpoint, Integer> added = new HashMap<>();
        boolean changed = false;
        for (ServiceInstance i : items) {
            int slot = slotOf(slots, listed, i.endpoint());
            Integer at = slot >= 0 ? Integer.valueOf(slots[slot]) : added.get(i.endpoint());
            if (at == null) {
                added.put(i.endpoint(), all.size());
                all.add(i);
                changed = true;
            } else if (!all.get(at).equals(i)) {
                all.set(at, i);
                changed = true;
            }
        }
        return changed ? indexed(ChunkedList.of(all)) : this;
    }

    /** This index without {@code e}, the last entry taking its place; {@code this} when {@code e} is not listed. */
    AddressIndex remove(Endpoint e) {
        Step s = next;
        AddressIndex known = s != null && s.arg == e ? s.result.get() : null;
        if (known != null) {
            return known;
        }
        int slot = slotOf(slots, listed, e);
        if (slot < 0) {
            return this;
        }
        int at = slots[slot];
        int last = listed.size() - 1;
        ChunkedList<ServiceInstance> l = listed.minusSwapped(at);
        AddressIndex r;
        if (l.isEmpty()) {
            r = EMPTY;
        } else {
            int[] t = slots.clone();
            deleteSlot(t, listed, slot);
            if (at != last) {
                t[slotOf(t, listed, listed.get(last).endpoint())] = at;
            }
            r = new AddressIndex(l, t);
        }
        next = new Step(e, new WeakReference<>(r));
        return r;
    }

    private static int[] emptySlots(int n) {
        int[] t = new int[n];
        Arrays.fill(t, -1);
        return t;
    }

    private static int home(int[] slots, Endpoint e) {
        int h = e.hashCode();
        return (h ^ (h >>> 16)) & (slots.length - 1);
    }

    /** The slot holding {@code e}'s position in {@code listed}, or {@code -(free slot) - 1} when it is not listed. */
    private static int slotOf(int[] slots, ChunkedList<ServiceInstance> listed, Endpoint e) {
        int mask = slots.length - 1;
        for (int h = home(slots, e); ; h = (h + 1) & mask) {
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
    private static void deleteSlot(int[] slots, ChunkedList<ServiceInstance> listed, int i) {
        int mask = slots.length - 1;
        for (int j = (i + 1) & mask; slots[j] >= 0; j = (j + 1) & mask) {
            int k = home(slots, listed.get(slots[j]).endpoint());
            boolean stays = i <= j ? i < k && k <= j : i < k || k <= j;
            if (!stays) {
                slots[i] = slots[j];
                i = j;
            }
        }
        slots[i] = -1;
    }

    /** An index of {@code l}. */
    private static AddressIndex indexed(ChunkedList<ServiceInstance> l) {
        int size = 16;
        while (size * 3 < (l.size() << 2)) {
            size <<= 1;
        }
        int[] t = emptySlots(size);
        for (int at = 0; at < l.size(); at++) {
            int s = slotOf(t, l, l.get(at).endpoint());
            if (s < 0) {
                t[-s - 1] = at;
            }
        }
        return new AddressIndex(l, t);
    }
}
