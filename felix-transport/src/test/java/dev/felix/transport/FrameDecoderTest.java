package dev.felix.transport;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.AbstractByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * {@link FrameDecoder} in an {@link EmbeddedChannel}: frames arriving in any pieces (one byte at a time, split
 * at every point, random cuts) come out whole, in order, each exactly once, with every buffer released; a
 * header declaring more than the maximum is refused as soon as the header is complete, before any payload is
 * buffered or allocated, and the rest of the stream is discarded.
 *
 * <p>The frames here use a test header (2-byte magic, 4-byte unsigned payload length) so the decoder is
 * tested on its own; Felix's header is checked by the server's and the client's validators.
 */
class FrameDecoderTest {

    private static final int HEADER = 6;
    private static final int MAGIC = 0xFE11;
    private static final long MAX = 1024;

    /** Validates the test header; counts calls and checks it is only ever handed a whole header. */
    private static final class Validator implements FrameDecoder.HeaderValidator {
        final AtomicInteger calls = new AtomicInteger();
        private final long max;

        Validator() {
            this(MAX);
        }

        Validator(long max) {
            this.max = max;
        }

        @Override
        public long payloadLength(java.nio.ByteBuffer header, StringBuilder problem) {
            calls.incrementAndGet();
            assertThat(header.remaining()).isEqualTo(HEADER);
            int magic = Short.toUnsignedInt(header.getShort(header.position()));
            long length = Integer.toUnsignedLong(header.getInt(header.position() + 2));
            if (magic != MAGIC) {
                problem.append("bad magic 0x").append(Integer.toHexString(magic));
                return -1;
            }
            if (length > max) {
                problem.append("declared payload length ").append(length).append(" exceeds max_frame_bytes ")
                        .append(max);
                return -1;
            }
            return length;
        }
    }

    private static byte[] frame(int payloadLength, int seed) {
        return frame(MAGIC, payloadLength, payloadLength, seed);
    }

    /** A header declaring {@code declared}, then {@code actual} payload bytes. */
    private static byte[] frame(int magic, long declared, int actual, int seed) {
        byte[] f = new byte[HEADER + actual];
        f[0] = (byte) (magic >>> 8);
        f[1] = (byte) magic;
        f[2] = (byte) (declared >>> 24);
        f[3] = (byte) (declared >>> 16);
        f[4] = (byte) (declared >>> 8);
        f[5] = (byte) declared;
        for (int i = 0; i < actual; i++) {
            f[HEADER + i] = (byte) (seed * 31 + i);
        }
        return f;
    }

    /** Five frames of awkward sizes: empty, one byte, shorter than a header, longer, the maximum. */
    private static List<byte[]> frames() {
        return List.of(frame(0, 1), frame(1, 2), frame(5, 3), frame(300, 4), frame((int) MAX, 5));
    }

    private static byte[] concat(List<byte[]> parts) {
        int n = parts.stream().mapToInt(p -> p.length).sum();
        byte[] all = new byte[n];
        int at = 0;
        for (byte[] p : parts) {
            System.arraycopy(p, 0, all, at, p.length);
            at += p.length;
        }
        return all;
    }

    /** Feeds {@code stream} cut at {@code cuts} (ascending positions); returns what came out, in order. */
    private static Fed feed(byte[] stream, int[] cuts, ByteBufAllocator alloc) {
        return feed(stream, cuts, alloc, MAX);
    }

    private static Fed feed(byte[] stream, int[] cuts, ByteBufAllocator alloc, long max) {
        Validator validator = new Validator(max);
        FrameDecoder decoder = new FrameDecoder(HEADER, validator);
        EmbeddedChannel channel = new EmbeddedChannel();
        if (alloc != null) {
            channel.config().setAllocator(alloc);
        }
        channel.pipeline().addLast(decoder);
        List<ByteBuf> inputs = new ArrayList<>();
        List<Object> out = new ArrayList<>();
        int from = 0;
        for (int i = 0; i <= cuts.length; i++) {
            int to = i < cuts.length ? cuts[i] : stream.length;
            ByteBuf piece = Unpooled.copiedBuffer(stream, from, to - from);
            inputs.add(piece);
            channel.writeInbound(piece);
            Object o;
            while ((o = channel.readInbound()) != null) {
                out.add(o);
            }
            from = to;
        }
        return new Fed(channel, decoder, validator, inputs, out);
    }

    private record Fed(EmbeddedChannel channel, FrameDecoder decoder, Validator validator, List<ByteBuf> inputs,
            List<Object> out) {

        /** The frames' bytes (each from its reader index), releasing every frame. */
        List<byte[]> frameBytes() {
            List<byte[]> frames = new ArrayList<>();
            for (Object o : out) {
                assertThat(o).isInstanceOf(ByteBuf.class);
                ByteBuf b = (ByteBuf) o;
                byte[] copy = new byte[b.readableBytes()];
                b.getBytes(b.readerIndex(), copy);
                frames.add(copy);
                b.release(); // the next handler owns each frame; assertNoLeak checks they were all it held
            }
            return frames;
        }

        /** Every input buffer was released once its bytes were consumed (nothing leaked). */
        void assertNoLeak() {
            channel.finishAndReleaseAll();
            for (ByteBuf in : inputs) {
                assertThat(in.refCnt()).as("input buffer released").isZero();
            }
        }
    }

    private static void assertFramesWhole(Fed fed, List<byte[]> expected) {
        List<byte[]> got = fed.frameBytes();
        assertThat(got).hasSameSizeAs(expected);
        for (int i = 0; i < expected.size(); i++) {
            assertThat(got.get(i)).as("frame %d", i).isEqualTo(expected.get(i));
        }
        assertThat(fed.decoder().pendingBytes()).isZero();
        assertThat(fed.validator().calls).as("one header check per frame").hasValue(expected.size());
        fed.assertNoLeak();
    }

    // ------------------------------------------------------------------ split frames

    @Test
    void wholeStreamInOneRead_givesEveryFrameWhole() {
        List<byte[]> frames = frames();
        assertFramesWhole(feed(concat(frames), new int[0], null), frames);
    }

    @Test
    void oneByteAtATime_givesEveryFrameWholeAndInOrder() {
        List<byte[]> frames = frames();
        byte[] stream = concat(frames);
        int[] cuts = new int[stream.length - 1];
        for (int i = 0; i < cuts.length; i++) {
            cuts[i] = i + 1;
        }
        assertFramesWhole(feed(stream, cuts, null), frames);
    }

    @Test
    void splitAtEveryPoint_givesEveryFrameWhole() {
        List<byte[]> frames = frames();
        byte[] stream = concat(frames);
        for (int cut = 1; cut < stream.length; cut++) {
            assertFramesWhole(feed(stream, new int[] {cut}, null), frames);
        }
    }

    @Test
    void eachFrameSplitAtEveryPointOfItsOwn_alsoAcrossTheNextHeader() {
        // Two cuts: one at every point of the 300-byte frame (header included), one inside the next header.
        List<byte[]> frames = frames();
        byte[] stream = concat(frames);
        int start = frames.get(0).length + frames.get(1).length + frames.get(2).length;
        int next = start + frames.get(3).length;
        for (int cut = start + 1; cut < next; cut++) {
            assertFramesWhole(feed(stream, new int[] {cut, next + 3}, null), frames);
        }
    }

    @Test
    void randomCuts_giveEveryFrameWhole() {
        Random random = new Random(42);
        for (int round = 0; round < 200; round++) {
            List<byte[]> frames = new ArrayList<>();
            for (int i = 0, n = 1 + random.nextInt(8); i < n; i++) {
                frames.add(frame(random.nextInt((int) MAX + 1), round * 10 + i));
            }
            byte[] stream = concat(frames);
            int[] cuts = random.ints(random.nextInt(20), 1, Math.max(2, stream.length)).distinct().sorted()
                    .filter(c -> c < stream.length).toArray();
            assertFramesWhole(feed(stream, cuts, null), frames);
        }
    }

    @Test
    void streamEndingInsideAFrame_reportsThePartialBytes_andEmitsNothingForThem() {
        byte[] whole = frame(10, 7);
        byte[] stream = concat(List.of(frame(2, 6), java.util.Arrays.copyOf(whole, HEADER + 4)));

        Fed fed = feed(stream, new int[] {3}, null);

        assertThat(fed.frameBytes()).hasSize(1);
        assertThat(fed.decoder().pendingBytes()).isEqualTo(HEADER + 4);
        fed.assertNoLeak();
    }

    // ------------------------------------------------------------------ large frames

    /** Reads of at most 64 KiB, as Netty's QUIC stream gives them, cut at random points. */
    private static int[] streamReads(int length, Random random) {
        List<Integer> cuts = new ArrayList<>();
        for (int at = 1 + random.nextInt(64 << 10); at < length; at += 1 + random.nextInt(64 << 10)) {
            cuts.add(at);
        }
        return cuts.stream().mapToInt(Integer::intValue).toArray();
    }

    @Test
    void largeFramesInReadsOf64KiB_comeOutWhole_andThePoolIsNeverAskedForMoreThanItsLimit() {
        Random random = new Random(7);
        for (int round = 0; round < 40; round++) {
            List<byte[]> frames = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                int size = switch (random.nextInt(4)) {
                    case 0 -> random.nextInt(100); // small
                    case 1 -> (64 << 10) - HEADER + random.nextInt(200); // about the own-buffer threshold
                    case 2 -> 100 << 10; // above the threshold, within the pool's limit
                    default -> (128 << 10) + random.nextInt(1 << 20); // above the pool's limit
                };
                frames.add(frame(size, round * 10 + i));
            }
            byte[] stream = concat(frames);
            RecordingAllocator alloc = new RecordingAllocator(false);

            assertFramesWhole(feed(stream, streamReads(stream.length, random), alloc, 2 << 20), frames);

            assertThat(alloc.largestCapacity()).as("round %d: largest buffer of the channel's allocator", round)
                    .isLessThanOrEqualTo(DirectBuffers.POOLED_MAX_BYTES);
        }
    }

    @Test
    void framesReleasedAsTheyArrive_16ReadsPerWakeup_growNoBufferPastThePoolsLimit() {
        // As on the broker: each frame is handled and released at once, so the cumulation could grow in place, and
        // a wakeup brings up to 16 reads before the read bytes are discarded.
        Random random = new Random(11);
        List<byte[]> frames = new ArrayList<>();
        for (int i = 0; i < 60; i++) {
            frames.add(frame(random.nextInt(4) == 0 ? (200 << 10) + random.nextInt(1 << 18) : random.nextInt(40 << 10), i));
        }
        byte[] stream = concat(frames);
        RecordingAllocator alloc = new RecordingAllocator(true);
        EmbeddedChannel channel = new EmbeddedChannel();
        channel.config().setAllocator(alloc);
        List<byte[]> got = new ArrayList<>();
        channel.pipeline().addLast(new FrameDecoder(HEADER, new Validator(1 << 20)), new ChannelInboundHandlerAdapter() {
            @Override
            public void channelRead(ChannelHandlerContext ctx, Object msg) {
                ByteBuf b = (ByteBuf) msg;
                byte[] copy = new byte[b.readableBytes()];
                b.readBytes(copy);
                b.release();
                got.add(copy);
            }
        });
        int[] cuts = streamReads(stream.length, random);
        List<ByteBuf> inputs = new ArrayList<>();
        for (int i = 0, from = 0; i <= cuts.length; ) {
            List<ByteBuf> wakeup = new ArrayList<>();
            for (int r = 0; r < 16 && i <= cuts.length; r++, i++) {
                int to = i < cuts.length ? cuts[i] : stream.length;
                ByteBuf piece = Unpooled.directBuffer(to - from).writeBytes(stream, from, to - from);
                wakeup.add(piece);
                from = to;
            }
            inputs.addAll(wakeup);
            channel.writeInbound(wakeup.toArray());
        }

        assertThat(got).hasSameSizeAs(frames);
        for (int i = 0; i < frames.size(); i++) {
            assertThat(got.get(i)).as("frame %d", i).isEqualTo(frames.get(i));
        }
        assertThat(alloc.largestCapacity()).as("largest buffer of the channel's allocator, grown in place or not")
                .isLessThanOrEqualTo(DirectBuffers.POOLED_MAX_BYTES);
        channel.finishAndReleaseAll();
        assertThat(inputs).allSatisfy(in -> assertThat(in.refCnt()).isZero());
    }

    @Test
    void aHeaderDeclaringALargeFrame_allocatesNothingOfThatSize_beforeItsBytesArrive() {
        // 64 streams each declaring 1 MiB and sending 100 bytes of it: memory must follow the bytes received.
        long before = directMemoryInUse();
        List<EmbeddedChannel> streams = new ArrayList<>();
        for (int i = 0; i < 64; i++) {
            EmbeddedChannel channel = new EmbeddedChannel(new FrameDecoder(HEADER, new Validator(2 << 20)));
            byte[] start = java.util.Arrays.copyOf(frame(1 << 20, i), HEADER + 100);
            channel.writeInbound(Unpooled.wrappedBuffer(start, 0, HEADER + 10));
            channel.writeInbound(Unpooled.wrappedBuffer(start, HEADER + 10, 90));
            streams.add(channel);
        }
        long grown = directMemoryInUse() - before;
        streams.forEach(EmbeddedChannel::finishAndReleaseAll);
        assertThat(grown).as("direct memory taken by 64 partial frames of 100 bytes").isLessThan(16L << 20);
    }

    /** Direct memory in use: Netty's own (malloc) and the JDK's ({@code ByteBuffer.allocateDirect}). */
    private static long directMemoryInUse() {
        long netty = Math.max(0, io.netty.util.internal.PlatformDependent.usedDirectMemory());
        long jdk = java.lang.management.ManagementFactory.getPlatformMXBeans(java.lang.management.BufferPoolMXBean.class)
                .stream().filter(b -> b.getName().equals("direct")).mapToLong(java.lang.management.BufferPoolMXBean::getMemoryUsed)
                .sum();
        return netty + jdk;
    }

    @Test
    void aLargeFrameFollowedInTheSameReadByTheNextFrames_givesEachWhole() {
        List<byte[]> frames = List.of(frame(3, 1), frame(300 << 10, 2), frame(5, 3), frame(70 << 10, 4), frame(0, 5));
        byte[] stream = concat(frames);
        int largeEnd = frames.get(0).length + frames.get(1).length;
        // The large frame's last bytes arrive with all that follows; then the same with the 70 KiB frame cut early.
        assertFramesWhole(feed(stream, new int[] {10, 100 << 10, largeEnd - 7}, new RecordingAllocator(false), 1 << 20),
                frames);
        assertFramesWhole(feed(stream, new int[] {largeEnd - 1, largeEnd + 40}, new RecordingAllocator(false), 1 << 20),
                frames);
    }

    // ------------------------------------------------------------------ oversize and bad headers

    @Test
    void oversizeDeclaration_isRefusedAsSoonAsTheHeaderIsComplete_beforeAnyPayloadArrives() {
        for (long declared : new long[] {MAX + 1, 1L << 20, Integer.MAX_VALUE, 0xFFFF_FFFFL}) {
            RecordingAllocator alloc = new RecordingAllocator();
            byte[] header = frame(MAGIC, declared, 0, 0);

            Fed fed = feed(header, new int[] {1, 2, 3, 4, 5}, alloc); // the header alone, a byte at a time

            assertThat(fed.out()).as("declared %d", declared).hasSize(1);
            FrameDecoder.BadHeader bad = (FrameDecoder.BadHeader) fed.out().get(0);
            assertThat(bad.reason()).contains("declared payload length " + declared, "max_frame_bytes " + MAX);
            assertThat(fed.validator().calls).as("checked once, when the header was whole").hasValue(1);
            assertThat(alloc.largest.get()).as("no buffer sized by the declaration").isLessThan(MAX);
            fed.assertNoLeak();
        }
    }

    @Test
    void oversizeDeclaration_theRestOfTheStreamIsDiscarded_evenAValidFrame() {
        RecordingAllocator alloc = new RecordingAllocator();
        byte[] stream = concat(List.of(frame(3, 1), frame(MAGIC, Integer.MAX_VALUE, 500, 2), frame(4, 3)));
        int afterFirst = frame(3, 1).length;

        Fed fed = feed(stream, new int[] {afterFirst + HEADER, afterFirst + HEADER + 100}, alloc);

        assertThat(fed.out()).hasSize(2);
        assertThat(fed.out().get(1)).isInstanceOf(FrameDecoder.BadHeader.class);
        ByteBuf first = (ByteBuf) fed.out().get(0);
        assertThat(first.readableBytes()).isEqualTo(HEADER + 3);
        first.release();
        assertThat(fed.decoder().pendingBytes()).as("nothing held after the bad header").isZero();
        assertThat(fed.validator().calls).as("no header read after the bad one").hasValue(2);
        assertThat(alloc.largest.get()).isLessThan(MAX);
        // More bytes later: still discarded, nothing emitted, nothing held.
        ByteBuf late = Unpooled.wrappedBuffer(frame(1, 9));
        fed.channel().writeInbound(late);
        assertThat((Object) fed.channel().readInbound()).isNull();
        assertThat(fed.decoder().pendingBytes()).isZero();
        assertThat(late.refCnt()).isZero();
        fed.assertNoLeak();
    }

    @Test
    void malformedHeader_isOneBadHeaderWithTheValidatorsReason() {
        Fed fed = feed(concat(List.of(frame(0xBEEF, 4, 4, 1), frame(2, 2))), new int[] {2}, null);

        assertThat(fed.out()).containsExactly(new FrameDecoder.BadHeader("bad magic 0xbeef", false));
        assertThat(fed.decoder().pendingBytes()).isZero();
        fed.assertNoLeak();
    }

    @Test
    void aHeaderLengthOfZeroOrLess_isRefusedAtConstruction() {
        Validator v = new Validator();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new FrameDecoder(0, v))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("headerLength must be positive: 0");
    }

    /**
     * Unpooled buffers that remember the largest capacity anyone asked for. Growable ones (heap) grow as Netty's do;
     * the others (direct) cannot grow past what was asked for, so a cumulation that needs more room asks the allocator
     * again (Netty then replaces it) and {@link #largest} sees every size the decoder's cumulation took.
     */
    private static final class RecordingAllocator extends AbstractByteBufAllocator {
        final AtomicLong largest = new AtomicLong();
        private final boolean growable;
        private final List<ByteBuf> made = new ArrayList<>();

        /** The largest capacity asked for or reached by growing in place, by any buffer this allocator made. */
        long largestCapacity() {
            return Math.max(largest.get(), made.stream().mapToLong(ByteBuf::capacity).max().orElse(0));
        }

        RecordingAllocator() {
            this(true);
        }

        RecordingAllocator(boolean growable) {
            super(!growable);
            this.growable = growable;
        }

        @Override
        protected ByteBuf newHeapBuffer(int initialCapacity, int maxCapacity) {
            largest.accumulateAndGet(initialCapacity, Math::max);
            ByteBuf b = Unpooled.buffer(initialCapacity, growable ? maxCapacity : initialCapacity);
            made.add(b);
            return b;
        }

        @Override
        protected ByteBuf newDirectBuffer(int initialCapacity, int maxCapacity) {
            largest.accumulateAndGet(initialCapacity, Math::max);
            ByteBuf b = Unpooled.directBuffer(initialCapacity, growable ? maxCapacity : initialCapacity);
            made.add(b);
            return b;
        }

        @Override
        public boolean isDirectBufferPooled() {
            return false;
        }
    }
}
