package dev.felix.server.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.core.CoreConfig;
import dev.felix.core.QueueLimits;
import dev.felix.core.QueuePolicy;
import dev.felix.core.StartPosition;
import dev.felix.core.StreamConfig;
import dev.felix.core.StreamName;
import dev.felix.core.broker.Broker;
import dev.felix.core.stream.EventBatch;
import dev.felix.core.stream.PublishListener;
import dev.felix.core.stream.PublishRequest;
import dev.felix.core.stream.Shard;
import dev.felix.core.stream.SubscribeRequest;
import dev.felix.core.stream.Subscription;
import dev.felix.transport.FrameBatch;
import dev.felix.wire.BinaryMuxEventBatch;
import dev.felix.wire.BinarySharedEventBatch;
import dev.felix.wire.EventBatchEncoder;
import dev.felix.wire.Frame;
import dev.felix.wire.FrameFlags;
import dev.felix.wire.WireCodec;
import io.netty.buffer.ByteBuf;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A batch larger than {@link Frames#FRAME_SPLIT_BYTES} is delivered as consecutive frames of at most that many payload
 * bytes, in order, with the right base offsets; a smaller one as one frame, encoded once.
 */
class FramesSplitTest {

    private static final long MAX_FRAME = 64L << 20;

    @Test
    void aLargeBatch_goesAsConsecutiveFramesWithinTheSplitSize_carryingEveryEventInOrder() throws Exception {
        byte[][] payloads = payloads(64, 20_000); // 1.25 MiB, the size of an SDK batch of 64 x 20 KB
        EventBatch batch = new EventBatch(0, 1_000, payloads, 0);

        byte[][] frames = Frames.events(batch, true);

        assertThat(frames.length).isGreaterThan(1);
        List<byte[]> received = new ArrayList<>();
        long next = 1_000;
        for (byte[] bytes : frames) {
            Frame frame = WireCodec.readFrame(ByteBuffer.wrap(bytes), MAX_FRAME);
            BinarySharedEventBatch decoded = WireCodec.decodeSharedEventBatch(frame.flags(), frame.payload());
            assertThat(decoded.baseOffset()).isEqualTo(next);
            assertThat(carried(decoded.payloads())).isLessThanOrEqualTo(Frames.FRAME_SPLIT_BYTES);
            next += decoded.payloads().size();
            received.addAll(decoded.payloads());
        }
        assertThat(received).containsExactly(payloads);
        assertThat(Frames.events(batch, true)).isSameAs(frames); // encoded once, shared by every subscriber
    }

    @Test
    void withoutOffsets_theFramesCarryTheEventsInOrder() throws Exception {
        byte[][] payloads = payloads(40, 5_000);
        byte[][] frames = Frames.events(new EventBatch(0, 7, payloads, 0), false);

        assertThat(frames.length).isGreaterThan(1);
        List<byte[]> received = new ArrayList<>();
        for (byte[] bytes : frames) {
            Frame frame = WireCodec.readFrame(ByteBuffer.wrap(bytes), MAX_FRAME);
            assertThat(frame.flags() & FrameFlags.EVENT_BATCH_OFFSETS).isZero();
            BinarySharedEventBatch decoded = WireCodec.decodeSharedEventBatch(frame.flags(), frame.payload());
            assertThat(carried(decoded.payloads())).isLessThanOrEqualTo(Frames.FRAME_SPLIT_BYTES);
            received.addAll(decoded.payloads());
        }
        assertThat(received).containsExactly(payloads);
    }

    @Test
    void anEventLargerThanTheSplitSize_goesAloneInItsOwnFrame() throws Exception {
        byte[][] payloads = {bytes(0, 10), bytes(1, 200_000), bytes(2, 10)};

        byte[][] frames = Frames.events(new EventBatch(0, 0, payloads, 0), true);

        assertThat(frames.length).isEqualTo(3);
        for (int i = 0; i < 3; i++) {
            Frame frame = WireCodec.readFrame(ByteBuffer.wrap(frames[i]), MAX_FRAME);
            BinarySharedEventBatch decoded = WireCodec.decodeSharedEventBatch(frame.flags(), frame.payload());
            assertThat(decoded.baseOffset()).isEqualTo(i);
            assertThat(decoded.payloads()).containsExactly(payloads[i]);
        }
    }

    @Test
    void aBatchWithinTheSplitSize_isOneFrame() {
        byte[][] payloads = payloads(10, 1_000);
        EventBatch batch = new EventBatch(0, 5, payloads, 0);

        byte[][] frames = Frames.events(batch, true);

        assertThat(frames.length).isEqualTo(1);
        assertThat(frames[0]).hasSize(EventBatchEncoder.sharedFrameLength(true, payloads, 0, payloads.length));
    }

    @Test
    void aLargeBatch_goesAsConsecutiveMuxFramesForTheSameChannels() throws Exception {
        byte[][] payloads = payloads(30, 9_000);
        EventBatch batch = new EventBatch(0, 100, payloads, 0);
        EmbeddedChannel channel = new EmbeddedChannel();
        FrameBatch out = new FrameBatch(channel);

        Frames.muxEvents(out, batch.from(103), new int[] {4, 9, 11}, 2, channel.alloc()); // 11 is not for it

        List<byte[]> received = readMuxFrames(channel, out, 103, 4, 9);
        assertThat(received).containsExactly(List.of(payloads).subList(3, 30).toArray(new byte[0][]));
        assertThat(channel.finishAndReleaseAll()).isFalse();
    }

    @Test
    void aLargeLiveBatch_goesAsMuxFramesAroundItsSharedFrames_whoseMemoryGoesWithTheLastShare() throws Exception {
        byte[][] payloads = payloads(30, 9_000);
        try (Broker broker = new Broker(CoreConfig.defaults().withShardThreads(1))) {
            Shard shard = broker.createStream(new StreamName("t", "ns", "shared"), StreamConfig.ephemeral(1)).shard(0);
            SubscribeRequest latest = new SubscribeRequest(StartPosition.LATEST, QueuePolicy.BLOCK,
                    new QueueLimits(1 << 20, 1L << 30), 0);
            Subscription first = shard.subscribe(latest).get(10, TimeUnit.SECONDS);
            Subscription second = shard.subscribe(latest).get(10, TimeUnit.SECONDS);
            CompletableFuture<Long> accepted = new CompletableFuture<>();
            assertThat(shard.tryPublish(PublishRequest.of(payloads, new PublishListener() {
                @Override
                public void accepted(int shardIndex, long firstOffset, int count) {
                    accepted.complete(firstOffset);
                }

                @Override
                public void failed(dev.felix.core.FelixError error) {
                    accepted.completeExceptionally(error.toException());
                }
            }))).isTrue();
            assertThat(accepted.get(10, TimeUnit.SECONDS)).isZero();
            EventBatch live = (EventBatch) first.poll();
            EmbeddedChannel channel = new EmbeddedChannel();

            FrameBatch before = new FrameBatch(channel);
            Frames.muxEvents(before, live, new int[] {4, 9}, 2, channel.alloc()); // one connection encodes
            ByteBuf merged = before.take();
            if (merged != null) {
                merged.release();
            }
            FrameBatch out = new FrameBatch(channel);
            Frames.muxEvents(out, live, new int[] {7}, 1, channel.alloc()); // another connection: the same frames
            List<byte[]> received = readMuxFrames(channel, out, 0, 7);

            assertThat(received).containsExactly(payloads);
            Frames.SharedFrames shared = Frames.sharedFrames(live, true, channel.alloc());
            assertThat(shared.frames()).hasSizeGreaterThan(1)
                    .allSatisfy(f -> assertThat(f.refCnt()).as("held by the batch alone").isEqualTo(1));
            live.releaseShare(); // the first subscriber's
            assertThat(shared.frames()).allSatisfy(f -> assertThat(f.refCnt()).isEqualTo(1));
            EventBatch again = (EventBatch) second.poll();
            assertThat(again).isSameAs(live);
            again.releaseShare(); // the last share
            assertThat(shared.frames()).allSatisfy(f -> assertThat(f.refCnt()).isZero());
            assertThat(channel.finishAndReleaseAll()).isFalse();
        }
    }

    /**
     * The multiplexed frames written to {@code channel} through {@code out} (the ones from {@code out}'s last buffer
     * included; every earlier frame of other writers is read and dropped first), checked to be for {@code channels}, in
     * order from {@code first}, within the split size; their events, and every buffer released.
     */
    private static List<byte[]> readMuxFrames(EmbeddedChannel channel, FrameBatch out, long first, int... channels)
            throws Exception {
        ByteBuf last = out.take(); // what is merged after the buffers the batch wrote as they filled
        channel.flush();
        List<ByteBuf> written = new ArrayList<>();
        for (Object m; (m = channel.readOutbound()) != null; ) {
            written.add((ByteBuf) m);
        }
        if (last != null) {
            written.add(last);
        }
        List<byte[]> received = new ArrayList<>();
        long next = first;
        int frames = 0;
        for (ByteBuf buf : written) {
            ByteBuffer src = buf.nioBuffer();
            while (src.hasRemaining()) {
                Frame frame = WireCodec.readFrame(src, MAX_FRAME);
                assertThat(frame.flags() & FrameFlags.MUX_DELIVERY).isNotZero();
                BinaryMuxEventBatch decoded = WireCodec.decodeMuxEventBatch(frame.payload());
                if (decoded.channels()[0] != channels[0]) {
                    continue; // another writer's frames, written before
                }
                assertThat(decoded.channels()).containsExactly(channels);
                assertThat(decoded.baseOffset()).isEqualTo(next);
                assertThat(carried(decoded.payloads())).isLessThanOrEqualTo(Frames.FRAME_SPLIT_BYTES);
                next += decoded.payloads().size();
                received.addAll(decoded.payloads());
                frames++;
            }
            buf.release();
        }
        assertThat(frames).isGreaterThan(1);
        return received;
    }

    /** Payload bytes a frame carries with their length prefixes, what the split size bounds. */
    private static long carried(List<byte[]> payloads) {
        long total = 0;
        for (byte[] p : payloads) {
            total += EventBatchEncoder.PAYLOAD_LENGTH_PREFIX + p.length;
        }
        return total;
    }

    private static byte[][] payloads(int count, int size) {
        byte[][] all = new byte[count][];
        for (int i = 0; i < count; i++) {
            all[i] = bytes(i, size);
        }
        return all;
    }

    /** {@code size} bytes that differ from one {@code seed} to the next. */
    private static byte[] bytes(int seed, int size) {
        byte[] b = new byte[size];
        for (int i = 0; i < size; i++) {
            b[i] = (byte) (seed * 31 + i);
        }
        return b;
    }
}
