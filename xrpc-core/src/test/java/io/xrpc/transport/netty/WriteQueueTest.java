package io.xrpc.transport.netty;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelOption;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

class WriteQueueTest {

    @Test
    void framesQueuedWhileUnwritableAreWrittenWhenTheFlushItselfMakesTheChannelWritable() {
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.config().setOption(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(50, 100));
        try {
            WriteQueue q = new WriteQueue(ch);
            q.enqueue(Unpooled.wrappedBuffer(new byte[80]));
            q.enqueue(Unpooled.wrappedBuffer(new byte[80])); // past the high mark: the third waits
            q.enqueue(Unpooled.wrappedBuffer(new byte[80]));
            // The flush empties the channel's buffer and makes it writable again at once, inside
            // the drain task: the queue must go on by itself, no further enqueue or event needed.
            for (int i = 0; i < 5 && ch.outboundMessages().size() < 3; i++) {
                ch.runPendingTasks();
            }
            assertThat(ch.outboundMessages()).hasSize(3);
            assertThat(q.queuedBytes()).isZero();
        } finally {
            Object o;
            while ((o = ch.readOutbound()) != null) {
                ((ByteBuf) o).release();
            }
            ch.finishAndReleaseAll();
        }
    }

    @Test
    void closeAfterFlushClosesOnlyOnceEverythingBeforeItWasWritten() {
        EmbeddedChannel ch = new EmbeddedChannel();
        try {
            WriteQueue q = new WriteQueue(ch);
            for (int i = 0; i < 600; i++) { // more than one drain batch of 256
                q.enqueue(Unpooled.wrappedBuffer(new byte[] {(byte) i}));
            }
            q.closeAfterFlush();
            ch.runPendingTasks();
            ch.runPendingTasks();
            // Every frame, then the empty flush the close waits for.
            assertThat(ch.outboundMessages())
                    .filteredOn(m -> ((ByteBuf) m).isReadable())
                    .hasSize(600);
            assertThat(ch.isOpen()).isFalse();
        } finally {
            Object o;
            while ((o = ch.readOutbound()) != null) {
                ((ByteBuf) o).release();
            }
            ch.finishAndReleaseAll();
        }
    }
}
