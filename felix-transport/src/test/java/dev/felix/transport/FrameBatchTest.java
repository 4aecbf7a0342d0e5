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
    void aBurstPastTheMergeLimitStartsANewBuffer() {
        String chunk = "z".repeat(FrameBatch.COPY_LIMIT);
        for (int i = 0; i < 5; i++) { // 5 x 16 KiB: four fill 64 KiB, the fifth starts the next buffer
            batch.add(frame(chunk), null);
        }
        batch.write();

        assertThat(recorder.writes).containsExactly(chunk.repeat(4), chunk);
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
