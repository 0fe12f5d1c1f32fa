package io.xrpc.testing;

/** A class of no fields whose name is as long as {@link Boom}'s. */
public class Calm {}
