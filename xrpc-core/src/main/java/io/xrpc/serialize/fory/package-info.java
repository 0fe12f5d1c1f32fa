/** The Apache Fory serializer ({@code fory}), guarded as the others are. */
package io.xrpc.serialize.fory;
