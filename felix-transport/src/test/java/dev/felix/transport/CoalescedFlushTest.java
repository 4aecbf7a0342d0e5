package dev.felix.transport;

import static dev.felix.transport.WriteRecorder.frame;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A QUIC stream sends at least one packet per buffer written, so what {@link CoalescedFlush} promises is counted
 * here in writes and flushes reaching the channel: a burst of queued frames is one write and one flush.
 */
class CoalescedFlushTest {

    private final WriteRecorder recorder = new WriteRecorder();
    private final EmbeddedChannel channel = new EmbeddedChannel(recorder);
    private final CoalescedFlush flush = new CoalescedFlush(channel);

    @AfterEach
    void close() {
        channel.finishAndReleaseAll();
    }

    @Test
    void framesQueuedInOneBurstLeaveAsOneWriteAndOneFlushOnceTheQueuedTasksRan() {
        ByteBuf a = frame("a1");
        ByteBuf b = frame("b22");
        ByteBuf c = frame("c333");

        flush.write(a);
        flush.write(b);
        flush.write(c);

        assertThat(recorder.writes).as("nothing leaves before the burst is over").isEmpty();
        assertThat(a.refCnt()).as("a queued frame is copied and released at once").isZero();
        assertThat(b.refCnt()).isZero();
        channel.runPendingTasks();
        assertThat(recorder.writes).containsExactly("a1b22c333");
        assertThat(recorder.flushes).isEqualTo(1);
    }

    @Test
    void aLoneFrameLeavesWithTheNextTaskWithoutWaitingForMore() {
        flush.write(frame("only"));
        channel.runPendingTasks();

        assertThat(recorder.writes).containsExactly("only");
        assertThat(recorder.flushes).isEqualTo(1);
    }

    @Test
    void aFrameWrittenDirectlyAfterWritePendingFollowsTheQueuedOnes() {
        flush.write(frame("reply"));
        flush.writePending();
        channel.pipeline().write(frame("event")); // the pipeline: EmbeddedChannel.write would run the tasks first
        channel.runPendingTasks();

        assertThat(recorder.writes).containsExactly("reply", "event");
        assertThat(recorder.flushes).isEqualTo(1);
    }

    @Test
    void aBurstLargerThanTheMergeLimitIsWrittenInOrderInSeveralBuffers() {
        String big = "x".repeat(FrameBatch.MAX_MERGED_BYTES - 10);
        flush.write(frame(big));
        flush.write(frame("0123456789ab")); // does not fit beside it: the first buffer is written, a new one starts
        flush.write(frame("tail"));
        channel.runPendingTasks();

        // (EmbeddedChannel runs its pending tasks on every write, so the flush count here says nothing.)
        assertThat(recorder.writes).containsExactly(big, "0123456789abtail");
    }
}
