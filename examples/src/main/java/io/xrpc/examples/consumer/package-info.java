/** The consumer Spring Boot application; start at {@link io.xrpc.examples.consumer.ConsumerApplication}. */
package io.xrpc.examples.consumer;
