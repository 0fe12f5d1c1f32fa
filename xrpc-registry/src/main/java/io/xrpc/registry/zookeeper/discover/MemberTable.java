package io.xrpc.registry.zookeeper.discover;

import io.xrpc.common.Endpoint;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * An application's members by address: an open-addressing table of the members themselves (each
 * holds its address), at most three quarters full, about 8 bytes a member where a HashMap takes 40
 * (its entry object and its slot). Not thread-safe: its {@link AppWatch}'s thread alone uses it.
 */
final class MemberTable {
    private Member[] slots = new Member[16];
    private int size;

    int size() {
        return size;
    }

    Member get(Endpoint e) {
        int mask = slots.length - 1;
        for (int h = home(e, mask); ; h = (h + 1) & mask) {
            Member m = slots[h];
            if (m == null || m.endpoint.equals(e)) {
                return m;
            }
        }
    }

    /** Adds {@code m}, whose address is not in the table. */
    void add(Member m) {
        if ((size + 1) << 2 > slots.length * 3) {
            Member[] old = slots;
            slots = new Member[old.length << 1];
            for (Member o : old) {
                if (o != null) {
                    place(o);
                }
            }
        }
        place(m);
        size++;
    }

    private void place(Member m) {
        int mask = slots.length - 1;
        int h = home(m.endpoint, mask);
        while (slots[h] != null) {
            h = (h + 1) & mask;
        }
        slots[h] = m;
    }

    /** Takes {@code e}'s member out; returns it, or null when there was none. */
    Member remove(Endpoint e) {
        int mask = slots.length - 1;
        int i = home(e, mask);
        while (slots[i] != null && !slots[i].endpoint.equals(e)) {
            i = (i + 1) & mask;
        }
        Member gone = slots[i];
        if (gone == null) {
            return null;
        }
        // Moves back the members after it that would no longer be found.
        for (int j = (i + 1) & mask; slots[j] != null; j = (j + 1) & mask) {
            int k = home(slots[j].endpoint, mask);
            boolean stays = i <= j ? i < k && k <= j : i < k || k <= j;
            if (!stays) {
                slots[i] = slots[j];
                i = j;
            }
        }
        slots[i] = null;
        size--;
        if (size == 0 && slots.length > 16) {
            slots = new Member[16];
        }
        return gone;
    }

    void forEach(Consumer<Member> action) {
        for (Member m : slots) {
            if (m != null) {
                action.accept(m);
            }
        }
    }

    /** The members now: a copy, for changing the table while going through them. */
    List<Member> all() {
        List<Member> all = new ArrayList<>(size);
        forEach(all::add);
        return all;
    }

    private static int home(Endpoint e, int mask) {
        int h = e.hashCode();
        return (h ^ (h >>> 16)) & mask;
    }
}
