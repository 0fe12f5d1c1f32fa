/**
 * Types every part of XRpc speaks in: {@link io.xrpc.common.RpcException} with its
 * {@link io.xrpc.common.RpcStatus}, {@link io.xrpc.common.Endpoint}, {@link io.xrpc.common.ServiceKey}
 * and {@link io.xrpc.common.Invocation}, what interceptors see of a call.
 */
package io.xrpc.common;
