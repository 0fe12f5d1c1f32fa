package io.xrpc.benchmark.model;

/** The small response message of the original XRpc's size test: request id, code, message, data. */
public class Response {
    public String requestId;
    public int code;
    public String message;
    public Object data;
}
