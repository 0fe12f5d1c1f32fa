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

    @Test
    void answersGoBeforeStreamMessagesQueuedAheadOfThemAndAStreamsEndStaysAfterItsMessages() {
        EmbeddedChannel ch = new EmbeddedChannel();
        try {
            WriteQueue q = new WriteQueue(ch);
            for (int i = 0; i < 10; i++) {
                q.enqueueStream(Unpooled.wrappedBuffer(new byte[] {'m', (byte) i}));
            }
            q.enqueueStream(Unpooled.wrappedBuffer(new byte[] {'e'}));
            q.enqueue(Unpooled.wrappedBuffer(new byte[] {'a'}));
            ch.runPendingTasks();
            StringBuilder order = new StringBuilder();
            Object o;
            while ((o = ch.readOutbound()) != null) {
                ByteBuf b = (ByteBuf) o;
                if (b.isReadable()) {
                    order.append((char) b.getByte(0));
                }
                b.release();
            }
            assertThat(order.toString()).isEqualTo("ammmmmmmmmme");
            assertThat(q.streamQueuedBytes()).isZero();
        } finally {
            ch.finishAndReleaseAll();
        }
    }

    @Test
    void streamSendersWaitForRoomAndAreCalledBackWhenTheLaneDrains() {
        EmbeddedChannel ch = new EmbeddedChannel();
        try {
            WriteQueue q = new WriteQueue(ch);
            q.enqueueStream(Unpooled.wrappedBuffer(new byte[WriteQueue.STREAM_ROOM]));
            assertThat(q.hasStreamRoom()).isFalse();
            int[] woken = {0};
            q.whenStreamRoom(() -> woken[0]++);
            assertThat(woken[0]).isZero();
            ch.runPendingTasks();
            assertThat(q.hasStreamRoom()).isTrue();
            assertThat(woken[0]).isEqualTo(1);
        } finally {
            Object o;
            while ((o = ch.readOutbound()) != null) {
                ((ByteBuf) o).release();
            }
            ch.finishAndReleaseAll();
        }
    }

    @Test
    void closingWritesTheStreamsLastFramesBeforeTheClose() {
        EmbeddedChannel ch = new EmbeddedChannel();
        try {
            WriteQueue q = new WriteQueue(ch);
            q.enqueueStream(Unpooled.wrappedBuffer(new byte[] {'e'}));
            q.closeAfterFlush();
            ch.runPendingTasks();
            assertThat(ch.outboundMessages())
                    .filteredOn(m -> ((ByteBuf) m).isReadable())
                    .hasSize(1);
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
