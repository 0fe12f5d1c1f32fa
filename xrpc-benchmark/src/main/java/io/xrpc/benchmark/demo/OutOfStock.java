package io.xrpc.benchmark.demo;

/** {@link Orders#place} asked for more than is left: the caller gets the SKU and what is left. */
public class OutOfStock extends Exception {
    private static final long serialVersionUID = 1L;

    private final String sku;
    private final int left;

    public OutOfStock(String sku, int left) {
        super("only " + left + " of " + sku + " left");
        this.sku = sku;
        this.left = left;
    }

    public String sku() {
        return sku;
    }

    public int left() {
        return left;
    }
}
