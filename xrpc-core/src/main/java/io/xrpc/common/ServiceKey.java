package io.xrpc.common;

import java.util.Objects;

/**
 * Identifies an exported service: interface name, version and group. Two exports of one interface
 * with different versions or groups are different services.
 *
 * @param interfaceName fully qualified interface name
 * @param version       version, empty when none
 * @param group         group, empty when none
 */
public record ServiceKey(String interfaceName, String version, String group) {

    public ServiceKey {
        Objects.requireNonNull(interfaceName, "interfaceName");
        version = version == null ? "" : version;
        group = group == null ? "" : group;
    }

    public static ServiceKey of(Class<?> iface, String version, String group) {
        return new ServiceKey(iface.getName(), version, group);
    }

    /** The form carried on the wire: {@code group/interface:version}, empty parts left out. */
    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder();
        if (!group.isEmpty()) {
            sb.append(group).append('/');
        }
        sb.append(interfaceName);
        if (!version.isEmpty()) {
            sb.append(':').append(version);
        }
        return sb.toString();
    }
}
