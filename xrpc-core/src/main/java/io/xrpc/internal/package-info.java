/** Helpers shared inside XRpc; not API, may change without notice. */
package io.xrpc.internal;
