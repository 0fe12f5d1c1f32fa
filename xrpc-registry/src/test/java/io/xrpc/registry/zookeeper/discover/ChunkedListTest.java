package io.xrpc.registry.zookeeper.discover;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The provider lists' storage: every version stays what it was, whatever comes after it. */
class ChunkedListTest {

    @Test
    void everyVersionKeepsItsEntriesThroughRandomChanges() {
        Random random = new Random(23);
        ChunkedList<Integer> list = ChunkedList.empty();
        List<Integer> model = new ArrayList<>();
        List<ChunkedList<Integer>> versions = new ArrayList<>();
        List<List<Integer>> expected = new ArrayList<>();
        for (int step = 0; step < 20_000; step++) {
            int op = random.nextInt(10);
            if (op < 5 || model.isEmpty()) {
                list = list.plus(step);
                model.add(step);
            } else if (op < 8) {
                int at = random.nextInt(model.size());
                list = list.minusSwapped(at);
                int last = model.remove(model.size() - 1);
                if (at < model.size()) {
                    model.set(at, last);
                }
            } else {
                int at = random.nextInt(model.size());
                list = list.with(at, -step);
                model.set(at, -step);
            }
            assertThat(list.size()).isEqualTo(model.size());
            if (step % 997 == 0) {
                versions.add(list);
                expected.add(List.copyOf(model));
            }
        }
        assertThat(list).containsExactlyElementsOf(model);
        for (int v = 0; v < versions.size(); v++) {
            assertThat(versions.get(v))
                    .as("version %d, after later changes", v)
                    .containsExactlyElementsOf(expected.get(v));
        }
    }

    @Test
    void aShrinkingListDropsItsEmptyChunksAndTheEntriesBeyondItsSize() {
        ChunkedList<Integer> list =
                ChunkedList.of(IntStream.range(0, 129).boxed().toList());
        assertThat(list.chunks()).isEqualTo(3);
        for (int i = 0; i < 129; i++) {
            list = list.minusSwapped(0);
            assertThat(list).hasSize(128 - i);
            assertThat(list.chunks()).as("chunks of %d entries", list.size()).isEqualTo((list.size() + 63) / 64);
            assertThat(list.holdsBeyondSize())
                    .as("an entry beyond size %d", list.size())
                    .isFalse();
        }
        assertThat(list).isEmpty();
        assertThat(ChunkedList.of(List.of(1, 2, 3)).plus(4).minusSwapped(3)).containsExactly(1, 2, 3);
    }
}
