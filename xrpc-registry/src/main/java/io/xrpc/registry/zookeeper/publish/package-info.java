/**
 * A provider's side of the registry, not API: {@link io.xrpc.registry.zookeeper.publish.Publisher}
 * registers what a server serves in one layout or both (a node per service, or a node per
 * instance with its revision and mapping), and {@code NodeKeeper} keeps those nodes alive across
 * session expiries and deletions. Uses the session and the layout, never the consumer's side.
 */
package io.xrpc.registry.zookeeper.publish;
