/** The provider Spring Boot application; start at {@link io.xrpc.examples.provider.ProviderApplication}. */
package io.xrpc.examples.provider;
