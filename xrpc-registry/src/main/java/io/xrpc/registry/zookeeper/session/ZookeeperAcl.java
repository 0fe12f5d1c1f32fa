package io.xrpc.registry.zookeeper.session;

import io.xrpc.registry.RegistryConfig;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.apache.zookeeper.server.auth.DigestAuthenticationProvider;

/**
 * The ACL XRpc gives every node it creates (the registry's {@code acl} setting), and how it reads the
 * ACL of a node it did not create. Entries are written as ZooKeeper's {@code setAcl} takes them,
 * {@code scheme:id:perms} with perms from {@code cdrwa}; {@code auth::cdrwa} means every identity
 * the creating session authenticated as (a digest user, a SASL principal).
 */
public final class ZookeeperAcl {
    /** Creator-all and read for everyone when the client authenticates; open otherwise. */
    public static final String AUTO = "auto";
    /** {@code world:anyone:cdrwa}: anyone who reaches ZooKeeper may change anything. */
    public static final String OPEN = "open";
    /** The setting naming whom consumers believe ({@link #trust}). */
    public static final String TRUST = "trust";

    // Not List.of: ZooKeeper's client asks the list whether it contains null, which List.of refuses.
    private static final List<ACL> CREATOR_ALL_ANYONE_READ = Collections.unmodifiableList(Arrays.asList(
            new ACL(ZooDefs.Perms.ALL, ZooDefs.Ids.AUTH_IDS),
            new ACL(ZooDefs.Perms.READ, ZooDefs.Ids.ANYONE_ID_UNSAFE)));

    private ZookeeperAcl() {}

    /** Fails, saying what is wrong, unless {@code spec} is {@code auto}, {@code open} or a list of entries. */
    public static void check(String spec) {
        if (!spec.equals(AUTO) && !spec.equals(OPEN)) {
            parse(spec);
        }
    }

    /**
     * The ACL of new nodes for a session that does ({@code authenticated}) or does not present an
     * identity; an ACL naming {@code auth} without one fails, as ZooKeeper would refuse every node.
     */
    public static List<ACL> resolve(String spec, boolean authenticated) {
        if (spec.equals(AUTO)) {
            return authenticated ? CREATOR_ALL_ANYONE_READ : ZooDefs.Ids.OPEN_ACL_UNSAFE;
        }
        if (spec.equals(OPEN)) {
            return ZooDefs.Ids.OPEN_ACL_UNSAFE;
        }
        List<ACL> acl = parse(spec);
        if (!authenticated && acl.stream().anyMatch(a -> a.getId().getScheme().equals("auth"))) {
            throw new IllegalArgumentException(RegistryConfig.ACL + ": '" + spec + "' gives rights to the creator"
                    + " (auth), but this registry client presents no identity: give it user:password@ in the"
                    + " address, or a SASL login (JAAS section Client)");
        }
        return Collections.unmodifiableList(acl);
    }

    /**
     * The identities a node's creating and administering rights may belong to for this client to
     * believe what is under it: the ids of {@code configured} ({@code auth} entries standing for
     * this client's own identity: its digest id, or any SASL principal, since a principal is
     * proved by a KDC while a digest is self-asserted by whoever knows the password).
     */
    public static List<Id> trustedIds(List<ACL> configured, String username, String password, boolean sasl) {
        List<Id> ids = new ArrayList<>();
        for (ACL a : configured) {
            Id id = a.getId();
            if (id.getScheme().equals("auth")) {
                if (username != null) {
                    try {
                        ids.add(new Id(
                                "digest", DigestAuthenticationProvider.generateDigest(username + ":" + password)));
                    } catch (NoSuchAlgorithmException e) {
                        throw new IllegalStateException("this JVM has no SHA-1 for ZooKeeper digests", e);
                    }
                }
                if (sasl) {
                    ids.add(new Id("sasl", "*"));
                }
            } else if (!isAnyone(id)) {
                ids.add(id);
            }
        }
        return List.copyOf(ids);
    }

    /**
     * Whether a node with this ACL, never changed since it was made ({@code aversion} 0), lets only
     * {@code trusted} identities add children to it or change who may: then everything under it was
     * written by them. A node whose ACL was changed may have been open, and written to, before.
     */
    public static boolean onlyTrustedMayWrite(List<ACL> acl, int aversion, List<Id> trusted) {
        if (aversion != 0) {
            return false;
        }
        for (ACL a : acl) {
            if ((a.getPerms() & (ZooDefs.Perms.CREATE | ZooDefs.Perms.ADMIN)) == 0) {
                continue;
            }
            boolean known = false;
            for (Id t : trusted) {
                if (t.getScheme().equals(a.getId().getScheme())
                        && (t.getId().equals("*") || t.getId().equals(a.getId().getId()))) {
                    known = true;
                    break;
                }
            }
            if (!known) {
                return false;
            }
        }
        return true;
    }

    /** Whether an unauthenticated session may add children under a node with this ACL. */
    public static boolean anyoneMayCreate(List<ACL> acl) {
        for (ACL a : acl) {
            // ADMIN too: whoever may change the ACL may open it, add a node and close it again.
            if ((a.getPerms() & (ZooDefs.Perms.CREATE | ZooDefs.Perms.ADMIN)) != 0 && isAnyone(a.getId())) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether {@code id} stands for everyone: {@code world:anyone}, or an {@code ip} range of prefix
     * length 0 ({@code 0.0.0.0/0}, {@code ::/0}), which every address matches.
     */
    public static boolean isAnyone(Id id) {
        String scheme = id.getScheme();
        if (scheme.equals("world")) {
            return id.getId().equals("anyone");
        }
        if (scheme.equals("ip")) {
            String v = id.getId().trim();
            int slash = v.lastIndexOf('/');
            return slash >= 0 && v.substring(slash + 1).trim().equals("0");
        }
        return false;
    }

    /**
     * The ids of a {@code trust} setting: {@code scheme:id} entries, comma-separated ({@code
     * digest:user:hash}, {@code sasl:*}, {@code sasl:name}, {@code ip:10.0.0.0/8}); empty for none.
     * An id that stands for everyone is refused: trusting it is trusting no one in particular.
     */
    public static List<Id> trust(String spec) {
        List<Id> ids = new ArrayList<>();
        if (spec.isBlank()) {
            return ids;
        }
        for (String entry : spec.split(",")) {
            String e = entry.trim();
            int colon = e.indexOf(':');
            if (colon <= 0 || colon == e.length() - 1) {
                throw new IllegalArgumentException(TRUST + ": '" + e + "' is not scheme:id (such as"
                        + " sasl:xrpc, x509:CN=xrpc or ip:10.1.0.0/16)");
            }
            Id id = new Id(e.substring(0, colon).toLowerCase(Locale.ROOT), e.substring(colon + 1));
            if (id.getScheme().equals("digest")) {
                throw new IllegalArgumentException(TRUST + ": '" + e + "': ZooKeeper shows a digest's"
                        + " hash only to a session with admin rights on the node, so a consumer cannot tell that identity"
                        + " from anyone naming himself so; trust a sasl, x509 or ip identity, or give the consumer the"
                        + " providers' credentials");
            }
            if (isAnyone(id) || id.getScheme().equals("auth")) {
                throw new IllegalArgumentException(TRUST + ": '" + e + "' stands for "
                        + (id.getScheme().equals("auth") ? "no one in particular" : "everyone")
                        + " (expected: the identity that creates the provider nodes)");
            }
            ids.add(id);
        }
        return List.copyOf(ids);
    }

    /**
     * Why a digest id in {@code acl} cannot be told apart, or "": ZooKeeper shows a digest's hash
     * ({@code user:x}) only to a session with admin rights on the node, so a consumer without them
     * cannot tell the providers' identity from anyone who names himself so.
     */
    public static String hiddenDigests(List<ACL> acl) {
        for (ACL a : acl) {
            if (a.getId().getScheme().equals("digest") && a.getId().getId().endsWith(":x")) {
                return " (ZooKeeper shows a digest's hash only to a session with admin rights on the node, so this"
                        + " client cannot tell that identity from anyone naming himself so: trust a sasl, x509 or ip"
                        + " identity, or give the consumer the providers' credentials)";
            }
        }
        return "";
    }

    /** The ACL as {@code scheme:id:perms} entries, a digest's password hash left out. */
    public static String describe(List<ACL> acl) {
        StringBuilder sb = new StringBuilder();
        for (ACL a : acl) {
            if (sb.length() > 0) {
                sb.append(',');
            }
            String id = a.getId().getId();
            if (a.getId().getScheme().equals("digest") && id.indexOf(':') > 0) {
                id = id.substring(0, id.indexOf(':')) + ":…";
            }
            sb.append(a.getId().getScheme()).append(':').append(id).append(':').append(perms(a.getPerms()));
        }
        return sb.toString();
    }

    private static String perms(int p) {
        StringBuilder sb = new StringBuilder();
        if ((p & ZooDefs.Perms.CREATE) != 0) {
            sb.append('c');
        }
        if ((p & ZooDefs.Perms.DELETE) != 0) {
            sb.append('d');
        }
        if ((p & ZooDefs.Perms.READ) != 0) {
            sb.append('r');
        }
        if ((p & ZooDefs.Perms.WRITE) != 0) {
            sb.append('w');
        }
        if ((p & ZooDefs.Perms.ADMIN) != 0) {
            sb.append('a');
        }
        return sb.toString();
    }

    private static List<ACL> parse(String spec) {
        List<ACL> acl = new ArrayList<>();
        for (String entry : spec.split(",")) {
            String e = entry.trim();
            int first = e.indexOf(':');
            int last = e.lastIndexOf(':');
            if (first <= 0 || last == first) {
                throw bad(spec, "'" + e + "' is not scheme:id:perms");
            }
            String scheme = e.substring(0, first).toLowerCase(Locale.ROOT);
            String id = e.substring(first + 1, last);
            int perms = 0;
            for (char c : e.substring(last + 1).toCharArray()) {
                perms |= switch (c) {
                    case 'c' -> ZooDefs.Perms.CREATE;
                    case 'd' -> ZooDefs.Perms.DELETE;
                    case 'r' -> ZooDefs.Perms.READ;
                    case 'w' -> ZooDefs.Perms.WRITE;
                    case 'a' -> ZooDefs.Perms.ADMIN;
                    default -> throw bad(spec, "'" + c + "' in '" + e + "' is not one of the permissions cdrwa");
                };
            }
            if (perms == 0) {
                throw bad(spec, "'" + e + "' grants nothing");
            }
            if (scheme.equals("world") && !id.equals("anyone") || scheme.equals("auth") && !id.isEmpty()) {
                throw bad(spec, "'" + e + "': the world scheme's only id is anyone, the auth scheme takes none");
            }
            acl.add(new ACL(perms, new Id(scheme, id)));
        }
        if (acl.stream()
                        .noneMatch(a -> (a.getPerms() & ZooDefs.Perms.ADMIN) != 0
                                && !a.getId().getScheme().equals("world"))
                && acl.stream().noneMatch(a -> a.getPerms() == ZooDefs.Perms.ALL)) {
            throw bad(spec, "no entry keeps the right to change the ACL (a) for the providers; add auth::cdrwa");
        }
        return acl;
    }

    private static IllegalArgumentException bad(String spec, String why) {
        return new IllegalArgumentException(RegistryConfig.ACL + ": '" + spec + "' (" + why
                + "; expected auto, open, or entries such as auth::cdrwa,world:anyone:r)");
    }
}
