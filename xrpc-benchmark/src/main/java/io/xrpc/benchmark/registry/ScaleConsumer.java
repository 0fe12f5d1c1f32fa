package io.xrpc.benchmark.registry;

import io.xrpc.registry.ServiceDiscovery;
import io.xrpc.registry.zookeeper.ZookeeperRegistry;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One consumer: its registry (its own session) and a subscription per service whose listener
 * only notes the list's size, so that the measured CPU is the registry's.
 */
final class ScaleConsumer {
    final ZookeeperRegistry registry;
    final int[] sizes; // guarded by this
    private int target = -1;
    private CountDownLatch done;
    private boolean tracking;
    private int trueSize;
    volatile long seenAt;
    final AtomicInteger minimum = new AtomicInteger(Integer.MAX_VALUE);
    final AtomicInteger below = new AtomicInteger();

    ScaleConsumer(ZookeeperRegistry registry, int services) {
        this.registry = registry;
        this.sizes = new int[services];
        for (int s = 0; s < services; s++) {
            int id = s;
            ServiceDiscovery.Subscription sub =
                    registry.subscribe(ProviderFleet.service(s), list -> changed(id, list.size()));
            synchronized (this) {
                sizes[s] = sub.instances().size();
            }
        }
    }

    private synchronized void changed(int s, int n) {
        int old = sizes[s];
        sizes[s] = n;
        if (tracking) {
            minimum.accumulateAndGet(n, Math::min);
            if (n < trueSize && old >= trueSize) {
                below.incrementAndGet();
            }
        }
        if (target >= 0 && seenAt == 0 && allAt(target)) {
            seen();
        }
    }

    synchronized void expect(int size, CountDownLatch latch) {
        seenAt = 0;
        done = latch;
        target = size;
        if (allAt(size)) {
            seen();
        }
    }

    private void seen() {
        seenAt = System.nanoTime();
        done.countDown();
    }

    synchronized boolean allAt(int size) {
        for (int n : sizes) {
            if (n != size) {
                return false;
            }
        }
        return true;
    }

    /** From now on, the smallest list and every fall below {@code size} are counted. */
    synchronized void trackMinimum(int size) {
        for (int n : sizes) {
            minimum.accumulateAndGet(n, Math::min);
        }
        trueSize = size;
        tracking = true;
    }
}
