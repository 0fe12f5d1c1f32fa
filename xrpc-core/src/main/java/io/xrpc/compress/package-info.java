/** Compressor SPI and the built-ins {@code none} and {@code gzip}; start at {@link io.xrpc.compress.Compressor}. */
package io.xrpc.compress;
