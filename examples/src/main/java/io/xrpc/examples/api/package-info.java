/** The API provider and consumer share: {@link io.xrpc.examples.api.OrderService} and its DTOs. */
package io.xrpc.examples.api;
