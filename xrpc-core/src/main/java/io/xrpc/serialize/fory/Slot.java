package io.xrpc.serialize.fory;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import org.apache.fory.Fory;
import org.apache.fory.memory.MemoryBuffer;

/**
 * One thread's Fory and its buffers: the scratch a message is written into, and the array a small
 * message is read whole into (or pointed at where it lies). Made once per thread and serializer
 * generation; one thread only.
 */
final class Slot {
    private static final ByteBuffer PARKED = ByteBuffer.allocateDirect(1);

    final Fory fory;
    final int generation;
    MemoryBuffer buffer = MemoryBuffer.newHeapBuffer(ForySerializer.BUFFER_SIZE);
    /** Reads that failed on this thread's Fory. */
    int failures;
    /** A whole small message, read at once: Fory checks every length against what it holds. */
    final byte[] smallBytes = new byte[ForySerializer.BUFFER_SIZE];

    final MemoryBuffer smallMessage = MemoryBuffer.fromByteArray(smallBytes, 0, 0);

    Slot(Fory fory, int generation) {
        this.fory = fory;
        this.generation = generation;
    }

    /**
     * The message for Fory to read: at most 4 KiB is read whole into this thread's buffer
     * after one look at the clock (reading so little cannot outlast a deadline by much);
     * anything larger comes through a {@link GuardedStream}.
     */
    MemoryBuffer message(InputStream in, long deadlineNanos) throws IOException {
        int n = in.available();
        if (n > ForySerializer.BUFFER_SIZE) {
            return new GuardedStream(in, deadlineNanos, n).getBuffer();
        }
        ForySerializer.checkDeadline(deadlineNanos, 0);
        int read = in.readNBytes(smallBytes, 0, n);
        smallMessage.initHeapBuffer(smallBytes, 0, read);
        smallMessage.readerIndex(0);
        return smallMessage;
    }

    /**
     * A message of at most 4 KiB as it lies in {@code in} (a heap array or direct memory),
     * after the one look at the clock {@link #message} takes too. Until {@link #released} the
     * thread's message points into the caller's memory.
     */
    MemoryBuffer inPlace(ByteBuffer in, long deadlineNanos) {
        ForySerializer.checkDeadline(deadlineNanos, 0);
        // Fory reads from a buffer's start, not its position; a frame's body starts at 0.
        ByteBuffer bytes = in.position() == 0 ? in : in.slice();
        smallMessage.initByteBuffer(bytes, bytes.remaining());
        smallMessage.readerIndex(0);
        return smallMessage;
    }

    /**
     * Points the thread's message back at its own array, away from memory the caller may free
     * (through a byte of its own first: Fory keeps the last direct buffer it was given).
     */
    void released() {
        smallMessage.initByteBuffer(PARKED, 0);
        smallMessage.initHeapBuffer(smallBytes, 0, 0);
    }
}
