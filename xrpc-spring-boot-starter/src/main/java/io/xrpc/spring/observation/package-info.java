/**
 * Micrometer Observations of XRpc calls: the client and server interceptors that make them, the
 * contexts they carry (the call's {@link io.xrpc.common.Invocation}, through which a tracing
 * handler propagates W3C trace context in the request's attachments) and the conventions that name
 * and tag them. See docs/OBSERVABILITY.md.
 */
package io.xrpc.spring.observation;
