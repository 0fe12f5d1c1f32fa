/** The demo README's first command runs ({@link io.xrpc.examples.Demo}); {@link io.xrpc.examples.QuickstartDemo} is the same without Spring. */
package io.xrpc.examples;
