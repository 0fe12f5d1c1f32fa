package io.xrpc.registry.zookeeper.layout;

import io.xrpc.common.Endpoint;
import io.xrpc.common.ServiceKey;
import io.xrpc.registry.ServiceInstance;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Paths and node data of the ZooKeeper layouts (see {@code docs/REGISTRY.md}).
 *
 * <p>Per instance (the default): {@code {root}/apps/{app}/instances/{host:port}@{revision}}, an
 * EPHEMERAL node whose name says everything a consumer needs of it; {@code
 * {root}/apps/{app}/revisions/{revision}}, the services of that revision, one per line as a query
 * string such as {@code service=com.acme.Orders&group=blue&version=1.0&weight=100}, the revision
 * being the first 32 hex digits (128 bits) of the SHA-256 of those lines (so a consumer can check what it
 * reads); {@code {root}/mapping/{interface}/{app}}, which applications serve an interface.
 *
 * <p>Per service: {@code {root}/{interface}/{group}/{version}/providers/{host:port}}, an empty
 * group or version written as {@code _}; the data is a URL-encoded query string such as
 * {@code weight=100&serializers=kryo,hessian&meta.zone=eu}.
 */
public final class NodeCodec {
    public static final String EMPTY = "_";

    private NodeCodec() {}

    public static String providersPath(String root, ServiceKey key) {
        return root + "/" + key.interfaceName() + "/" + orEmpty(key.group()) + "/" + orEmpty(key.version())
                + "/providers";
    }

    public static String instancePath(String root, ServiceInstance instance) {
        return providersPath(root, instance.serviceKey()) + "/" + instance.endpoint();
    }

    private static String orEmpty(String s) {
        return s.isEmpty() ? EMPTY : s;
    }

    public static byte[] encode(ServiceInstance instance) {
        return query(instance).getBytes(StandardCharsets.UTF_8);
    }

    /** What a consumer reads of an instance, as a query string: {@code weight=100&serializers=...&meta.k=v}. */
    private static String query(ServiceInstance instance) {
        StringBuilder sb = new StringBuilder("weight=").append(instance.weight());
        if (!instance.serializers().isEmpty()) {
            sb.append("&serializers=").append(enc(String.join(",", instance.serializers())));
        }
        instance.metadata()
                .forEach(
                        (k, v) -> sb.append("&meta.").append(enc(k)).append('=').append(enc(v)));
        return sb.toString();
    }

    /** The instance a provider node describes; {@code nodeName} is its {@code host:port}. */
    public static ServiceInstance decode(ServiceKey key, String nodeName, byte[] data) {
        return instance(
                key, Endpoint.parse(nodeName), pairs(data == null ? "" : new String(data, StandardCharsets.UTF_8)));
    }

    /** A query string's decoded pairs, in order; a name without {@code =} has an empty value. */
    private static Map<String, String> pairs(String query) {
        Map<String, String> pairs = new LinkedHashMap<>();
        for (String pair : query.split("&")) {
            if (!pair.isEmpty()) {
                int eq = pair.indexOf('=');
                pairs.put(dec(eq < 0 ? pair : pair.substring(0, eq)), eq < 0 ? "" : dec(pair.substring(eq + 1)));
            }
        }
        return pairs;
    }

    /** The instance {@code pairs} describe (weight, serializers, meta.*; other names ignored). */
    private static ServiceInstance instance(ServiceKey key, Endpoint endpoint, Map<String, String> pairs) {
        int weight = ServiceInstance.DEFAULT_WEIGHT;
        List<String> serializers = new ArrayList<>();
        Map<String, String> metadata = new LinkedHashMap<>();
        for (Map.Entry<String, String> p : pairs.entrySet()) {
            String k = p.getKey();
            if (k.equals("weight")) {
                weight = Integer.parseInt(p.getValue());
            } else if (k.equals("serializers")) {
                for (String s : p.getValue().split(",")) {
                    if (!s.isBlank()) {
                        serializers.add(s.trim());
                    }
                }
            } else if (k.startsWith("meta.")) {
                metadata.put(k.substring(5), p.getValue());
            }
        }
        return new ServiceInstance(key, endpoint, weight, serializers, metadata);
    }

    /** Application names: what a node name can hold, as {@code application=} and the mapping take them. */
    private static final Pattern APPLICATION = Pattern.compile("[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}");

    /** Whether {@code name} may name an application: 1-100 letters, digits, '.', '_' or '-', not starting with '.'. */
    public static boolean isApplicationName(String name) {
        return APPLICATION.matcher(name).matches();
    }

    public static String appPath(String root, String app) {
        return root + "/apps/" + app;
    }

    public static String instancesPath(String root, String app) {
        return appPath(root, app) + "/instances";
    }

    public static String revisionsPath(String root, String app) {
        return appPath(root, app) + "/revisions";
    }

    public static String revisionPath(String root, String app, String revision) {
        return revisionsPath(root, app) + "/" + revision;
    }

    public static String mappingPath(String root, String interfaceName) {
        return root + "/mapping/" + interfaceName;
    }

    /** An instance node's name: its address and the revision of what it serves. */
    public static String instanceName(Endpoint endpoint, String revision) {
        return endpoint + "@" + revision;
    }

    /** Whether {@code s} holds only lowercase hex digits from {@code from} to {@code to}: the names XRpc writes. */
    public static boolean isLowerHex(String s, int from, int to) {
        for (int i = from; i < to; i++) {
            char c = s.charAt(i);
            if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) {
                return false;
            }
        }
        return true;
    }

    /** Hex digits of a revision. */
    public static final int REVISION_LENGTH = 32;

    /** The address part of an instance node's name; {@code null} when it is not one. */
    public static Endpoint instanceEndpoint(String name) {
        int at = name.lastIndexOf('@');
        if (at <= 0 || at != name.length() - REVISION_LENGTH - 1) {
            return null;
        }
        if (!isLowerHex(name, at + 1, name.length())) {
            return null;
        }
        try {
            return Endpoint.parse(name.substring(0, at));
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** The revision part of an instance node's name (valid only when {@link #instanceEndpoint} is not null). */
    public static String instanceRevision(String name) {
        return name.substring(name.length() - REVISION_LENGTH);
    }

    /**
     * A revision's content: one line per service, sorted, each the service's key and what a
     * consumer reads of it (weight, serializers, metadata). The same services give the same bytes.
     */
    public static byte[] encodeRevision(Collection<ServiceInstance> services) {
        List<String> lines = new ArrayList<>();
        for (ServiceInstance i : services) {
            ServiceKey k = i.serviceKey();
            lines.add("service=" + enc(k.interfaceName()) + "&group=" + enc(k.group()) + "&version=" + enc(k.version())
                    + "&" + query(i));
        }
        Collections.sort(lines);
        return String.join("\n", lines).getBytes(StandardCharsets.UTF_8);
    }

    /** The revision of {@code content}: 32 hex digits of its SHA-256. */
    public static String revisionOf(byte[] content) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(content);
            return HexFormat.of().formatHex(d, 0, REVISION_LENGTH / 2);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e); // every JDK has SHA-256
        }
    }

    /**
     * What a revision node says: each service with the attributes of its instances, which are
     * {@code endpoint} filled in by {@link Revision#instance}. Fails when the content does not
     * hash to {@code revision}: nobody can make a consumer believe other services under a name.
     */
    public static Revision decodeRevision(String revision, byte[] content) {
        if (!revisionOf(content).equals(revision)) {
            throw new IllegalArgumentException("content does not hash to revision " + revision);
        }
        Map<ServiceKey, ServiceInstance> services = new HashMap<>();
        for (String line : new String(content, StandardCharsets.UTF_8).split("\n")) {
            if (!line.isEmpty()) {
                Map<String, String> p = pairs(line);
                ServiceKey key = new ServiceKey(
                        p.getOrDefault("service", ""), p.getOrDefault("version", ""), p.getOrDefault("group", ""));
                services.put(key, instance(key, PLACEHOLDER, p));
            }
        }
        return new Revision(revision, services);
    }

    /** The address of a revision's entries, which stand for every instance serving it. */
    private static final Endpoint PLACEHOLDER = new Endpoint("0.0.0.0", 1);

    /**
     * The services one revision serves, each as an instance at a placeholder address, and the
     * distinct things it says of them (weight, serializers, metadata; usually one for all its
     * services): an instance's entry in a consumer's lists is one of those with its own address,
     * shared by every service it says it of.
     */
    public static final class Revision {
        private final String id;
        private final Map<ServiceKey, ServiceInstance> services;
        /** The distinct templates, in first-seen order of the sorted keys. */
        private final ServiceInstance[] specs;
        /** Each service's index in {@link #specs}. */
        private final Map<ServiceKey, Integer> specOf;

        public Revision(String id, Map<ServiceKey, ServiceInstance> services) {
            this.id = id;
            this.services = Map.copyOf(services);
            List<ServiceInstance> distinct = new ArrayList<>(1);
            Map<List<Object>, Integer> seen = new HashMap<>();
            Map<ServiceKey, Integer> index = new HashMap<>();
            List<ServiceKey> keys = new ArrayList<>(this.services.keySet());
            keys.sort(Comparator.comparing(ServiceKey::toString));
            for (ServiceKey k : keys) {
                ServiceInstance t = this.services.get(k);
                Integer at = seen.computeIfAbsent(List.of(t.weight(), t.serializers(), t.metadata()), x -> {
                    distinct.add(t);
                    return distinct.size() - 1;
                });
                index.put(k, at);
            }
            this.specs = distinct.toArray(new ServiceInstance[0]);
            this.specOf = Map.copyOf(index);
        }

        public String id() {
            return id;
        }

        public Map<ServiceKey, ServiceInstance> services() {
            return services;
        }

        /** How many distinct things the revision says of its services (what a consumer keeps per instance). */
        public int specs() {
            return specs.length;
        }

        /** Which of them it says of {@code key}, or -1 when it does not serve it. */
        public int specOf(ServiceKey key) {
            Integer at = specOf.get(key);
            return at == null ? -1 : at;
        }

        /** Spec {@code k} at {@code endpoint}, without a service key: the entry every service of that spec shares. */
        public ServiceInstance shared(int k, Endpoint endpoint) {
            return ServiceInstance.shared(endpoint, specs[k]);
        }
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private static String dec(String s) {
        return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }
}
