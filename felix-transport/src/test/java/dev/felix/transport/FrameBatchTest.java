package dev.felix.transport;

import static dev.felix.transport.WriteRecorder.frame;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelPromise;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What {@link FrameBatch} promises, counted in buffers reaching the channel (a QUIC stream sends a packet per
 * buffer): small frames share one buffer, large ones are not copied, order is kept, and every frame's promise
 * completes with the write that carried it.
 */
class FrameBatchTest {

    private final WriteRecorder recorder = new WriteRecorder();
    private final EmbeddedChannel channel = new EmbeddedChannel(recorder);
    private final FrameBatch batch = new FrameBatch(channel);

    @AfterEach
    void close() {
        channel.finishAndReleaseAll();
    }

    @Test
    void smallFramesShareOneBufferAndEachPromiseCompletesWithItsWrite() {
        ChannelPromise a = channel.newPromise();
        ChannelPromise c = channel.newPromise();
        ByteBuf first = frame("a1");
        batch.add(first, a);
        batch.add(frame("b22"), null);
        batch.add(frame("c333"), c);

        assertThat(first.refCnt()).as("copied and released at once").isZero();
        assertThat(a.isDone()).as("not written yet").isFalse();
        batch.write();

        assertThat(recorder.writes).containsExactly("a1b22c333");
        assertThat(a.isSuccess()).isTrue();
        assertThat(c.isSuccess()).isTrue();
        assertThat(batch.isEmpty()).isTrue();
    }

    @Test
    void aLargeFrameIsWrittenAsItIsAfterTheFramesMergedBeforeIt() {
        String big = "y".repeat(FrameBatch.COPY_LIMIT + 1);
        ByteBuf large = frame(big);
        batch.add(frame("before"), null);
        batch.add(large, null);
        batch.add(frame("after"), null);
        batch.write();

        assertThat(recorder.writes).containsExactly("before", big, "after");
    }

    @Test
    void aLargeFrameOnTheHeap_isWrittenAsADirectCopy_fromThePoolUpToItsLimit_andTheLargeBufferCacheAbove() {
        String pooled = "p".repeat(DirectBuffers.POOLED_MAX_BYTES);
        String large = "q".repeat(DirectBuffers.POOLED_MAX_BYTES + 1);
        ByteBuf a = frame(pooled);
        ByteBuf b = frame(large);
        ChannelPromise promise = channel.newPromise();
        batch.add(a, null);
        batch.add(b, promise);
        assertThat(a.refCnt()).as("copied and released").isZero();
        assertThat(b.refCnt()).as("copied and released").isZero();

        batch.write();

        assertThat(recorder.writes).containsExactly(pooled, large);
        assertThat(recorder.directFrom).containsExactly(channel.alloc(), LargeBufferCache.SHARED);
        assertThat(promise.isSuccess()).isTrue();
    }

    @Test
    void aBurstPastTheMergeLimitStartsANewBuffer() {
        String chunk = "z".repeat(FrameBatch.COPY_LIMIT);
        for (int i = 0; i < 5; i++) { // 5 x 16 KiB: four fill 64 KiB, the fifth starts the next buffer
            batch.add(frame(chunk), null);
        }
        batch.write();

        assertThat(recorder.writes).containsExactly(chunk.repeat(4), chunk);
    }

    // ------------------------------------------------------------------ gathering

    @Test
    void gathering_aLargeFrameGoesUncopied_inTheSameWrite_afterTheFramesAddedBeforeIt() {
        FrameBatch gathering = FrameBatch.gathering(channel);
        String big = "y".repeat(FrameBatch.COPY_LIMIT + 1);
        ByteBuf large = direct(big);
        ChannelPromise promise = channel.newPromise();
        gathering.add(frame("before"), null);
        gathering.add(large, promise);
        gathering.add(frame("after"), null);
        assertThat(large.refCnt()).as("kept as it is, not copied").isEqualTo(1);

        gathering.write();

        assertThat(recorder.writes).containsExactly("before" + big + "after");
        assertThat(recorder.parts).containsExactly(3);
        assertThat(large.refCnt()).as("released with the write").isZero();
        assertThat(promise.isSuccess()).isTrue();
    }

    @Test
    void gathering_aLargeFrameOnTheHeap_isCopiedIntoDirectMemory_andAloneIsWrittenAsItIs() {
        FrameBatch gathering = FrameBatch.gathering(channel);
        String big = "h".repeat(FrameBatch.COPY_LIMIT + 1);
        ByteBuf heap = frame(big);
        gathering.add(heap, null);
        assertThat(heap.refCnt()).as("copied and released").isZero();

        gathering.write();

        assertThat(recorder.writes).containsExactly(big);
        assertThat(recorder.parts).as("one buffer, not a composite of one").containsExactly(1);
        assertThat(recorder.directFrom).as("a pooled direct copy").containsExactly(channel.alloc());
    }

    @Test
    void gathering_aBurstPastTheMergeLimitStartsANewBuffer_inTheSameWrite() {
        FrameBatch gathering = FrameBatch.gathering(channel);
        String chunk = "z".repeat(FrameBatch.COPY_LIMIT);
        for (int i = 0; i < 5; i++) { // 5 x 16 KiB: four fill 64 KiB, the fifth starts the next buffer
            gathering.add(frame(chunk), null);
        }
        gathering.write();

        assertThat(recorder.writes).containsExactly(chunk.repeat(5));
        assertThat(recorder.parts).containsExactly(2);
    }

    @Test
    void gathering_aBurstIsWrittenInPiecesOfAtMostTheWriteLimit() {
        FrameBatch gathering = FrameBatch.gathering(channel);
        int size = 64 << 10;
        for (int i = 0; i < 20; i++) { // 1.25 MiB: the first 16 make a full write
            gathering.add(direct("w".repeat(size)), null);
        }
        assertThat(recorder.writes).hasSize(1);
        gathering.write();

        assertThat(recorder.writes).extracting(String::length).containsExactly(FrameBatch.MAX_WRITE_BYTES, 4 * size);
    }

    @Test
    void gathering_aBurstIsWrittenInPiecesOfAtMostTheMaximumParts() {
        FrameBatch gathering = FrameBatch.gathering(channel);
        String big = "p".repeat(FrameBatch.COPY_LIMIT + 1);
        for (int i = 0; i < 40; i++) { // each large frame closes the merged one before it: two parts per pair
            gathering.add(frame("s"), null);
            gathering.add(direct(big), null);
        }
        gathering.write();

        assertThat(recorder.parts).containsExactly(FrameBatch.MAX_PARTS, 80 - FrameBatch.MAX_PARTS);
        assertThat(String.join("", recorder.writes)).isEqualTo(("s" + big).repeat(40));
    }

    @Test
    void gathering_takeAndDiscardHandOverOrReleaseTheGatheredParts() {
        FrameBatch gathering = FrameBatch.gathering(channel);
        ByteBuf large = direct("t".repeat(FrameBatch.COPY_LIMIT + 1));
        gathering.add(frame("a"), null);
        gathering.add(large, null);
        ByteBuf taken = gathering.take();
        try {
            assertThat(taken.toString(StandardCharsets.US_ASCII)).isEqualTo("a" + "t".repeat(FrameBatch.COPY_LIMIT + 1));
        } finally {
            taken.release();
        }
        assertThat(large.refCnt()).isZero();

        ByteBuf dropped = direct("d".repeat(FrameBatch.COPY_LIMIT + 1));
        ChannelPromise promise = channel.newPromise();
        gathering.add(dropped, promise);
        gathering.discard(new IOException("closed"));
        assertThat(dropped.refCnt()).isZero();
        assertThat(promise.cause()).hasMessage("closed");
        assertThat(gathering.isEmpty()).isTrue();
        assertThat(recorder.writes).isEmpty();
    }

    private static ByteBuf direct(String s) {
        return io.netty.buffer.Unpooled.directBuffer(s.length()).writeBytes(s.getBytes(StandardCharsets.US_ASCII));
    }

    @Test
    void aFailedWriteFailsThePromisesOfEveryFrameItCarried() {
        recorder.failing = true;
        ChannelPromise a = channel.newPromise();
        ChannelPromise b = channel.newPromise();
        batch.add(frame("a"), a);
        batch.add(frame("b"), b);
        batch.write();

        assertThat(a.cause()).hasMessage("stream reset");
        assertThat(b.cause()).hasMessage("stream reset");
    }

    @Test
    void framesEncodedInPlaceAndTakenByTheCaller() {
        batch.room(3).writeBytes(new byte[] {'o', 'n', 'e'});
        batch.room(3).writeBytes(new byte[] {'t', 'w', 'o'});
        ByteBuf taken = batch.take();
        try {
            assertThat(taken.toString(StandardCharsets.US_ASCII)).isEqualTo("onetwo");
        } finally {
            taken.release();
        }
        assertThat(batch.take()).as("nothing left").isNull();
        assertThat(recorder.writes).isEmpty();
    }

    @Test
    void takeRefusesFramesThatWaitForPromisesAndDiscardFailsThem() {
        ChannelPromise p = channel.newPromise();
        batch.add(frame("x"), p);
        assertThatThrownBy(batch::take).isInstanceOf(IllegalStateException.class);

        batch.discard(new IOException("closed"));
        assertThat(p.cause()).hasMessage("closed");
        assertThat(batch.isEmpty()).isTrue();
    }
}
