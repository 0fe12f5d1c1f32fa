package io.xrpc.registry;

/**
 * One consumer's place among the consumers of its application: {@code index} of {@code count},
 * the same order for all of them. Subsetting ({@code io.xrpc.config.Subsetting}) gives each
 * consumer its own slice of a large service's providers from it, so that together they cover
 * every provider evenly.
 *
 * @param index this consumer's place, 0 to {@code count - 1}
 * @param count how many consumers there are
 */
public record PeerPosition(int index, int count) {
    public PeerPosition {
        if (count < 1 || index < 0 || index >= count) {
            throw new IllegalArgumentException(
                    "peer position " + index + " of " + count + " (expected: 0 <= index < count)");
        }
    }
}
