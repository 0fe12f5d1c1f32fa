package io.xrpc.registry.zookeeper.session;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Collectors;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Id;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who this registry client is and whom it believes: the ACL every node it creates gets, whether
 * that ACL keeps unauthenticated sessions out, and which identities may have written a node for
 * its providers to be believed. Immutable but for the warning it gives once.
 *
 * <p>With credentials, new nodes are creator-all and read for everyone, so that only providers of
 * the same identity may add a provider. A consumer with credentials (or told whom to trust)
 * believes the providers under a node only when that node's ACL has never changed and lets nobody
 * but the trusted identities add to it or change it. Without either, everything is open, and the
 * client says so once.
 */
public final class Trust {
    private static final Logger log = LoggerFactory.getLogger(ZookeeperSession.LOGGER);

    /** Who this client is, for messages: {@code digest:user}, {@code sasl} or {@code anonymous}. */
    private final String identity;
    /** The ACL of every node this client creates. */
    private final List<ACL> acl;
    /** Whether {@link #acl} keeps unauthenticated sessions from adding nodes: then lists are checked. */
    private final boolean secured;
    /** Whether providers are believed only where {@link #trustedIds} alone may have written them. */
    private final boolean verifies;
    /** Who may create under a providers node, or change its ACL, for this client to believe it. */
    private final List<Id> trustedIds;
    /** Set once this consumer has said that it believes anyone on a tree someone in particular writes. */
    private final AtomicBoolean trustWarned = new AtomicBoolean();

    Trust(String aclSpec, String trustSpec, String username, String password, boolean sasl) {
        List<Id> trust = ZookeeperAcl.trust(trustSpec);
        this.identity = username != null
                ? "digest:" + username
                : sasl ? "sasl" : !trust.isEmpty() ? "the identities it trusts (" + names(trust) + ")" : "anonymous";
        this.acl = ZookeeperAcl.resolve(aclSpec, username != null || sasl);
        this.secured = !ZookeeperAcl.anyoneMayCreate(acl);
        List<Id> ids = new ArrayList<>(ZookeeperAcl.trustedIds(acl, username, password, sasl));
        ids.addAll(trust);
        this.trustedIds = List.copyOf(ids);
        // A consumer verifies what it reads when its own nodes are closed, or when told whom to trust.
        this.verifies = secured || !trust.isEmpty();
    }

    private static String names(List<Id> ids) {
        return ids.stream()
                .map(i -> i.getScheme() + ":"
                        + (i.getId().contains(":")
                                ? i.getId().substring(0, i.getId().indexOf(':'))
                                : i.getId()))
                .collect(Collectors.joining(","));
    }

    /** Who this client is, for messages: {@code digest:user}, {@code sasl} or {@code anonymous}. */
    public String identity() {
        return identity;
    }

    /** The ACL of every node this client creates. */
    public List<ACL> acl() {
        return acl;
    }

    /** Whether nodes this client creates keep unauthenticated sessions from adding providers. */
    public boolean secured() {
        return secured;
    }

    /** Whether what this client reads is believed only where trusted identities alone may have written it. */
    public boolean verifies() {
        return verifies;
    }

    /**
     * Whether a node with {@code nodeAcl}, whose ACL changed {@code aversion} times since it was
     * made, can only have been written under by the identities this client trusts.
     */
    public boolean believes(List<ACL> nodeAcl, int aversion) {
        return ZookeeperAcl.onlyTrustedMayWrite(nodeAcl, aversion, trustedIds);
    }

    /** Whether {@link #warnIfTrustingAnyone} has warned already: nothing more to look at. */
    public boolean warned() {
        return trustWarned.get();
    }

    /**
     * Warns, once, that this consumer believes providers from anyone while {@code path} is written by
     * someone in particular: a node anyone planted there before the providers registered would be
     * called, tokens and all (10-20 of 20 calls reached such a rogue in a test from outside).
     */
    public void warnIfTrustingAnyone(String path, List<ACL> nodeAcl) {
        if (!ZookeeperAcl.anyoneMayCreate(nodeAcl) && trustWarned.compareAndSet(false, true)) {
            log.warn(
                    "{} is written by {} only, but this registry client has no credentials and no trust setting, so"
                            + " it believes providers from anyone, a node planted before the providers registered"
                            + " included: set trust= to the providers' sasl, x509 or ip identity, or give it the"
                            + " providers' credentials (docs/REGISTRY.md)",
                    path,
                    ZookeeperAcl.describe(nodeAcl));
        }
    }
}
