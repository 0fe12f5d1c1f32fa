/**
 * The ZooKeeper session, not API: {@link io.xrpc.registry.zookeeper.session.ZookeeperSession}
 * connects through Curator (digest, SASL or anonymous), tracks the connection and the session id,
 * and tells the publishers and watchers when the connection comes back or the session is lost;
 * {@link io.xrpc.registry.zookeeper.session.Trust} is who this client is and whom it believes, and
 * {@link io.xrpc.registry.zookeeper.session.ZookeeperAcl} reads and writes ACLs. Uses no other
 * part of the registry.
 */
package io.xrpc.registry.zookeeper.session;
