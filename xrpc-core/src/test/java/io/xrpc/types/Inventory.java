package io.xrpc.types;

import java.util.concurrent.CompletableFuture;

/** The service: a checked business exception with a field, declared on the interface. */
public interface Inventory {
    /** Thrown when fewer items are left than asked for. */
    class OutOfStockException extends Exception {
        private static final long serialVersionUID = 1L;
        private final int available;
        private final String sku;

        public OutOfStockException(String sku, int available) {
            super("only " + available + " of " + sku + " left");
            this.sku = sku;
            this.available = available;
        }

        public int available() {
            return available;
        }

        public String sku() {
            return sku;
        }
    }

    /** A subclass the interface does not name, allowed by class on the caller. */
    class DiscontinuedException extends OutOfStockException {
        private static final long serialVersionUID = 1L;
        private final short sinceYear;

        public DiscontinuedException(String sku, short sinceYear) {
            super(sku, 0);
            this.sinceYear = sinceYear;
        }

        public short sinceYear() {
            return sinceYear;
        }
    }

    /** Declared too, thrown with a cause that is not on any allow-list. */
    class WarehouseException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public WarehouseException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** Reserves {@code count} of {@code sku}; the implementation throws what the sku names. */
    int reserve(String sku, int count) throws OutOfStockException, WarehouseException;

    CompletableFuture<Integer> reserveAsync(String sku, int count) throws OutOfStockException;

    /** Declares everything, which is to say nothing: what it throws stays an RpcException. */
    int broadlyDeclared(String sku) throws Exception;

    /** Declares nothing: whatever it throws stays an RpcException. */
    int count(String sku);
}
