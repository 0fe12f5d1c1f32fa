package io.xrpc.loadbalance;

import io.xrpc.common.Invocation;
import io.xrpc.registry.ServiceInstance;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * {@code consistent-hash}: calls with the same key go to the same provider, and when a provider
 * joins or leaves only about its share of keys moves. A ring of 160 virtual nodes per provider
 * (MD5, four points per digest) is built per method and rebuilt only when the provider list
 * changes. The key is made of the arguments at the configured positions (default the first); a
 * method without arguments has one fixed key.
 */
public final class ConsistentHashLoadBalancer implements LoadBalancerProvider {
    static final int VIRTUAL_NODES = 160;

    private static final ThreadLocal<MessageDigest> MD5 = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("MD5");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("MD5 is required of every JDK", e);
        }
    });

    @Override
    public String name() {
        return "consistent-hash";
    }

    @Override
    public LoadBalancer create(Context context) {
        return new Balancer(context.hashArguments());
    }

    private static final class Balancer implements LoadBalancer {
        private final int[] positions;
        private final Map<String, Ring> rings = new ConcurrentHashMap<>();

        Balancer(int[] positions) {
            this.positions = positions.clone();
        }

        @Override
        public ServiceInstance select(List<ServiceInstance> candidates, Invocation invocation) {
            String method = invocation.method().signature();
            long hash = hash(md5(key(invocation.arguments())), 0);
            Ring ring = rings.get(method);
            if (ring != null
                    && !ring.isFor(candidates)
                    && ring.source.size() > candidates.size()
                    && ring.source.containsAll(candidates)) {
                // Some providers are excluded for this call (a failover retry, a dead address):
                // keep the ring and walk on to the next allowed provider, so only the excluded
                // providers' keys move, and the cached ring survives.
                return ring.lookup(hash, candidates);
            }
            if (ring == null || !ring.isFor(candidates)) {
                ring = new Ring(candidates);
                rings.put(method, ring);
            }
            return ring.lookup(hash);
        }

        private String key(Object[] args) {
            if (args.length == 0) {
                return "";
            }
            StringBuilder sb = new StringBuilder();
            for (int p : positions) {
                if (p < args.length) {
                    sb.append(args[p]);
                }
            }
            return sb.toString();
        }
    }

    private static final class Ring {
        private final List<ServiceInstance> source;
        private final TreeMap<Long, ServiceInstance> points = new TreeMap<>();

        Ring(List<ServiceInstance> candidates) {
            this.source = List.copyOf(candidates);
            for (ServiceInstance c : source) {
                String id = c.endpoint().toString();
                for (int i = 0; i < VIRTUAL_NODES / 4; i++) {
                    byte[] digest = md5(id + "#" + i);
                    for (int h = 0; h < 4; h++) {
                        points.put(hash(digest, h), c);
                    }
                }
            }
        }

        boolean isFor(List<ServiceInstance> candidates) {
            return source == candidates || source.equals(candidates);
        }

        ServiceInstance lookup(long hash) {
            Map.Entry<Long, ServiceInstance> e = points.ceilingEntry(hash);
            return (e != null ? e : points.firstEntry()).getValue();
        }

        /** The first provider at or after {@code hash} on the ring that is among {@code allowed}. */
        ServiceInstance lookup(long hash, List<ServiceInstance> allowed) {
            for (ServiceInstance s : points.tailMap(hash, true).values()) {
                if (allowed.contains(s)) {
                    return s;
                }
            }
            for (ServiceInstance s : points.values()) {
                if (allowed.contains(s)) {
                    return s;
                }
            }
            return allowed.get(0);
        }
    }

    private static byte[] md5(String s) {
        MessageDigest md = MD5.get();
        md.reset();
        return md.digest(s.getBytes(StandardCharsets.UTF_8));
    }

    /** The {@code n}-th unsigned 32-bit little-endian word of a digest. */
    private static long hash(byte[] digest, int n) {
        return ((long) (digest[3 + n * 4] & 0xFF) << 24)
                | ((long) (digest[2 + n * 4] & 0xFF) << 16)
                | ((long) (digest[1 + n * 4] & 0xFF) << 8)
                | (digest[n * 4] & 0xFF);
    }
}
