package io.xrpc.registry.zookeeper.discover;

import java.util.AbstractList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.RandomAccess;

/**
 * An immutable list kept in chunks of 64, so that the next version after one change shares every
 * chunk but one or two: a provider list of P entries costs a change about P/64 + 128 references
 * copied rather than P. Published lists are replaced, never changed, so a balancer can hold one
 * while the registry moves on.
 */
final class ChunkedList<T> extends AbstractList<T> implements RandomAccess {
    private static final int SHIFT = 6;
    private static final int CHUNK = 1 << SHIFT;
    private static final int MASK = CHUNK - 1;
    private static final Object[][] NO_CHUNKS = new Object[0][];
    private static final ChunkedList<?> EMPTY = new ChunkedList<>(NO_CHUNKS, 0);

    private final Object[][] chunks;
    private final int size;

    private ChunkedList(Object[][] chunks, int size) {
        this.chunks = chunks;
        this.size = size;
    }

    @SuppressWarnings("unchecked")
    static <T> ChunkedList<T> empty() {
        return (ChunkedList<T>) EMPTY;
    }

    static <T> ChunkedList<T> of(List<? extends T> items) {
        int n = items.size();
        Object[][] c = new Object[(n + MASK) >>> SHIFT][];
        for (int k = 0; k < c.length; k++) {
            c[k] = new Object[CHUNK];
        }
        for (int i = 0; i < n; i++) {
            c[i >>> SHIFT][i & MASK] = items.get(i);
        }
        return new ChunkedList<>(c, n);
    }

    @Override
    @SuppressWarnings("unchecked")
    public T get(int index) {
        Objects.checkIndex(index, size);
        return (T) chunks[index >>> SHIFT][index & MASK];
    }

    @Override
    public int size() {
        return size;
    }

    /** Chunks held: what a test checks to see that a shrinking list lets its empty chunks go. */
    int chunks() {
        return chunks.length;
    }

    /** Whether a slot past the end still holds an entry (it must not: nothing beyond the size stays reachable). */
    boolean holdsBeyondSize() {
        for (int i = size; i < chunks.length << SHIFT; i++) {
            if (chunks[i >>> SHIFT][i & MASK] != null) {
                return true;
            }
        }
        return false;
    }

    /** This list with {@code item} at {@code index}. */
    ChunkedList<T> with(int index, T item) {
        Objects.checkIndex(index, size);
        Object[][] c = chunks.clone();
        int k = index >>> SHIFT;
        c[k] = c[k].clone();
        c[k][index & MASK] = item;
        return new ChunkedList<>(c, size);
    }

    /** This list with {@code item} added at the end. */
    ChunkedList<T> plus(T item) {
        int k = size >>> SHIFT;
        Object[][] c;
        if (k == chunks.length) {
            c = Arrays.copyOf(chunks, k + 1);
            c[k] = new Object[CHUNK];
        } else {
            c = chunks.clone();
            c[k] = c[k].clone();
        }
        c[k][size & MASK] = item;
        return new ChunkedList<>(c, size + 1);
    }

    /** This list without the entry at {@code index}, the last entry taking its place (order is not kept). */
    ChunkedList<T> minusSwapped(int index) {
        Objects.checkIndex(index, size);
        int last = size - 1;
        int lastChunk = last >>> SHIFT;
        Object[][] c = (last & MASK) == 0 ? Arrays.copyOf(chunks, lastChunk) : chunks.clone();
        if (index != last) {
            int k = index >>> SHIFT; // below the last chunk's, or in it when that one stays
            c[k] = c[k].clone();
            c[k][index & MASK] = chunks[lastChunk][last & MASK];
        }
        if ((last & MASK) != 0) {
            // Nothing beyond the size may stay reachable: the last chunk without its last entry.
            c[lastChunk] = c[lastChunk] == chunks[lastChunk] ? c[lastChunk].clone() : c[lastChunk];
            c[lastChunk][last & MASK] = null;
        }
        return new ChunkedList<>(c, last);
    }
}
