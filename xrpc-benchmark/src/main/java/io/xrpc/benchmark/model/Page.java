package io.xrpc.benchmark.model;

import java.util.List;

/** A page of results, as rpc-benchmark's listUser returns it. */
public class Page<T> {
    public int pageNo;
    public int total;
    public List<T> result;
}
