package io.xrpc.registry.zookeeper;

import io.xrpc.common.Endpoint;
import io.xrpc.common.ServiceKey;
import io.xrpc.registry.ServiceInstance;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Paths and node data of the ZooKeeper layout (see {@code docs/REGISTRY.md}):
 * {@code {root}/{interface}/{group}/{version}/providers/{host:port}}, an empty group or version
 * written as {@code _}; the data is a URL-encoded query string such as
 * {@code weight=100&serializers=kryo,hessian&meta.zone=eu}.
 */
final class NodeCodec {
    static final String EMPTY = "_";

    private NodeCodec() {
    }

    static String providersPath(String root, ServiceKey key) {
        return root + "/" + key.interfaceName() + "/" + orEmpty(key.group()) + "/" + orEmpty(key.version()) + "/providers";
    }

    static String instancePath(String root, ServiceInstance instance) {
        return providersPath(root, instance.serviceKey()) + "/" + instance.endpoint();
    }

    private static String orEmpty(String s) {
        return s.isEmpty() ? EMPTY : s;
    }

    static byte[] encode(ServiceInstance instance) {
        StringBuilder sb = new StringBuilder("weight=").append(instance.weight());
        if (!instance.serializers().isEmpty()) {
            sb.append("&serializers=").append(enc(String.join(",", instance.serializers())));
        }
        instance.metadata().forEach((k, v) -> sb.append("&meta.").append(enc(k)).append('=').append(enc(v)));
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** The instance a provider node describes; {@code nodeName} is its {@code host:port}. */
    static ServiceInstance decode(ServiceKey key, String nodeName, byte[] data) {
        Endpoint endpoint = Endpoint.parse(nodeName);
        int weight = ServiceInstance.DEFAULT_WEIGHT;
        List<String> serializers = new ArrayList<>();
        Map<String, String> metadata = new LinkedHashMap<>();
        String text = data == null ? "" : new String(data, StandardCharsets.UTF_8);
        for (String pair : text.split("&")) {
            if (pair.isEmpty()) {
                continue;
            }
            int eq = pair.indexOf('=');
            String k = dec(eq < 0 ? pair : pair.substring(0, eq));
            String v = eq < 0 ? "" : dec(pair.substring(eq + 1));
            if (k.equals("weight")) {
                weight = Integer.parseInt(v);
            } else if (k.equals("serializers")) {
                for (String s : v.split(",")) {
                    if (!s.isBlank()) {
                        serializers.add(s.trim());
                    }
                }
            } else if (k.startsWith("meta.")) {
                metadata.put(k.substring(5), v);
            }
        }
        return new ServiceInstance(key, endpoint, weight, serializers, metadata);
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private static String dec(String s) {
        return URLDecoder.decode(s, StandardCharsets.UTF_8);
    }
}
