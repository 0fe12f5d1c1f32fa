package io.xrpc.loadbalance;

import io.xrpc.common.Invocation;
import io.xrpc.registry.ServiceInstance;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * {@code p2c}: the power of two choices over a latency estimate, as Finagle and Linkerd balance.
 * Two providers are drawn at random and the call goes to the one whose latency estimate times
 * (its calls in flight + 1) is lower, so a slow or frozen provider stops receiving calls within
 * a few of them: its estimate rises with its first slow answer, and while it answers nothing its
 * calls in flight pile up. The estimate ({@link Context#latencyNanos}) fades while a provider has
 * nothing in flight, so one that recovered is tried again. A provider not yet answered is
 * compared by calls in flight alone. Two random draws and two reads per call; no lock.
 *
 * <p>Composes with outlier ejection: providers set aside are not among the candidates. Within a
 * subset ({@link Aperture.Window}) the two are drawn as points of the window, so that a provider
 * the window covers in part is drawn in that proportion.
 * Providers of unequal weights (a canary given a small share) are chosen as {@code random} chooses,
 * in proportion to their weights, since latency balancing would override the share the operator
 * set; whether a list's weights are equal is found once per list.
 */
public final class P2cLoadBalancer implements LoadBalancerProvider {

    @Override
    public String name() {
        return "p2c";
    }

    @Override
    public LoadBalancer create(Context context) {
        return new LoadBalancer() {
            /** The last list seen and whether its weights are all equal. */
            private volatile Weights last = new Weights(List.of(), true);

            @Override
            public ServiceInstance select(List<ServiceInstance> candidates, Invocation invocation) {
                Weights w = last;
                if (w.list != candidates) {
                    w = new Weights(candidates, equalWeights(candidates));
                    last = w;
                }
                return w.equal
                        ? P2cLoadBalancer.select(context, candidates)
                        : RandomLoadBalancer.pickWeighted(candidates);
            }
        };
    }

    private record Weights(List<ServiceInstance> list, boolean equal) {}

    private static boolean equalWeights(List<ServiceInstance> candidates) {
        int first = candidates.isEmpty() ? 0 : candidates.get(0).weight();
        for (ServiceInstance c : candidates) {
            if (c.weight() != first) {
                return false;
            }
        }
        return true;
    }

    static ServiceInstance select(Context context, List<ServiceInstance> candidates) {
        int n = candidates.size();
        if (n == 1) {
            return candidates.get(0);
        }
        ThreadLocalRandom r = ThreadLocalRandom.current();
        int i;
        int j;
        if (candidates instanceof Aperture.Window w) {
            // Two points of the window: a provider it covers in part is drawn in that proportion,
            // which is what keeps every provider's share equal across consumers (Subsetting).
            i = w.pick(r);
            j = w.pick(r);
            if (j == i) {
                j = w.pick(r);
            }
            if (j == i) {
                j = (i + 1 + r.nextInt(n - 1)) % n;
            }
        } else {
            i = r.nextInt(n);
            j = r.nextInt(n - 1);
            if (j >= i) {
                j++;
            }
        }
        ServiceInstance a = candidates.get(i);
        ServiceInstance b = candidates.get(j);
        int activeA = context.activeCalls(a.endpoint());
        int activeB = context.activeCalls(b.endpoint());
        long latencyA = context.latencyNanos(a.endpoint());
        long latencyB = context.latencyNanos(b.endpoint());
        if (latencyA == 0 || latencyB == 0) {
            // One has never answered: nothing to weigh but the calls waiting on each.
            return activeA < activeB ? a : activeB < activeA ? b : r.nextBoolean() ? a : b;
        }
        double costA = (double) latencyA * (activeA + 1);
        double costB = (double) latencyB * (activeB + 1);
        return costA < costB ? a : costB < costA ? b : r.nextBoolean() ? a : b;
    }
}
