/** The demo that README's first command runs; start at {@link io.xrpc.examples.QuickstartDemo}. */
package io.xrpc.examples;
