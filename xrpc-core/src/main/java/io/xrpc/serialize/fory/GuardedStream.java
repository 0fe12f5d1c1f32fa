package io.xrpc.serialize.fory;

import io.xrpc.serialize.PayloadLimitException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import org.apache.fory.io.ForyInputStream;

/**
 * The message as Fory reads it: a fill Fory asks for that the rest of the message cannot hold
 * is refused before anything is allocated for it, and each fill first checks the deadline.
 */
final class GuardedStream extends ForyInputStream {
    private final InputStream message;
    private final long deadlineNanos;
    private long filled;

    GuardedStream(InputStream message, long deadlineNanos, int available) {
        super(new Chunked(message), Math.max(16, Math.min(available, ForySerializer.CHUNK)));
        this.message = message;
        this.deadlineNanos = deadlineNanos;
    }

    @Override
    public int fillBuffer(int minFillSize) {
        ForySerializer.checkDeadline(deadlineNanos, filled);
        int left = ForySerializer.available(message);
        if (minFillSize > left) {
            throw new PayloadLimitException(
                    "fory asks for " + minFillSize + " more bytes, but only " + left + " are left in the message");
        }
        int n = super.fillBuffer(minFillSize);
        filled += n;
        return n;
    }

    /** At most {@link ForySerializer#CHUNK} bytes a read, so that Fory comes back for more (and the clock is read) often. */
    private static final class Chunked extends FilterInputStream {
        Chunked(InputStream in) {
            super(in);
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            return in.read(b, off, Math.min(len, ForySerializer.CHUNK));
        }
    }
}
