package dev.felix.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.transport.FrameDecoder;
import dev.felix.wire.BinaryEventBatch;
import dev.felix.wire.BinarySharedEventBatch;
import dev.felix.wire.BinaryWatchChanges;
import dev.felix.wire.CacheEntry;
import dev.felix.wire.FrameHeader;
import dev.felix.wire.Message;
import dev.felix.wire.WireCodec;
import dev.felix.wire.WireException;
import dev.felix.wire.WirePayload;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The client's frame decoding ({@link ClientFrames#decoder} then {@link ClientFrames#decode}) over the
 * frames a broker sends, as QUIC hands them over: in one read, a byte at a time, split at every point and at
 * random points. Every frame comes out whole, in order, and decodes to the message that was sent. A frame
 * declaring more than the client's {@code maxFrameBytes} is refused from its header alone.
 */
class ClientFrameDecodingTest {

    private static final int MAX = 64 << 10;

    /** What a broker sends a client: replies, event batches (JSON and both binary layouts), gaps, watch items. */
    private static List<WirePayload> brokerFrames() {
        byte[] big = new byte[1_200];
        new Random(1).nextBytes(big);
        return List.of(
                new Message.AuthOk(0x3F),
                new Message.Subscribed(7, List.of(0, 1, 2)),
                new Message.EventStreamHello(7, 1, 42L),
                new BinaryEventBatch(7, 100L, List.of(new byte[0], bytes("a"), big)),
                new BinarySharedEventBatch(103L, List.of(bytes("shared-1"), bytes("shared-2"))),
                new Message.Gap(7, 1, 105, 109, "queue_overflow"),
                new Message.PublishOk(9, 110L, 1, 1),
                new Message.PublishError(10, "the shard's writer queue is full", "overloaded"),
                new Message.ErrorMessage("stream 't1/default/x' not found", "not_found", null),
                new Message.WatchSnapshot(12, List.of(new CacheEntry("k", bytes("v"), null)), true),
                new Message.WatchChange(12, "k", Message.WatchChange.OP_PUT, bytes("v2"), null),
                new BinaryWatchChanges(List.of(
                        new Message.WatchChange(13, "k", Message.WatchChange.OP_PUT, big, 1_700_000_000_000L),
                        new Message.WatchChange(14, "k", Message.WatchChange.OP_DELETE, null, null))),
                new Message.WatchEnded(15, "overloaded", "watcher queue full"));
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] stream(List<WirePayload> payloads) {
        List<byte[]> frames = payloads.stream().map(WireCodec::encodeFrame).toList();
        byte[] all = new byte[frames.stream().mapToInt(f -> f.length).sum()];
        int at = 0;
        for (byte[] f : frames) {
            System.arraycopy(f, 0, all, at, f.length);
            at += f.length;
        }
        return all;
    }

    /** Feeds {@code bytes} cut at {@code cuts}; returns the decoded payloads (or BadHeaders) in order. */
    private static List<Object> feed(byte[] bytes, int[] cuts, int maxFrameBytes) {
        FrameDecoder decoder = ClientFrames.decoder(maxFrameBytes);
        EmbeddedChannel channel = new EmbeddedChannel(decoder);
        List<ByteBuf> inputs = new ArrayList<>();
        List<Object> out = new ArrayList<>();
        int from = 0;
        for (int i = 0; i <= cuts.length; i++) {
            int to = i < cuts.length ? cuts[i] : bytes.length;
            ByteBuf piece = Unpooled.copiedBuffer(bytes, from, to - from);
            inputs.add(piece);
            channel.writeInbound(piece);
            Object o;
            while ((o = channel.readInbound()) != null) {
                if (o instanceof ByteBuf frame) {
                    try {
                        out.add(ClientFrames.decode(frame));
                    } catch (WireException e) {
                        throw new AssertionError("frame did not decode: " + e, e);
                    } finally {
                        frame.release();
                    }
                } else {
                    out.add(o);
                }
            }
            from = to;
        }
        assertThat(decoder.pendingBytes()).as("nothing left over").isZero();
        channel.finishAndReleaseAll();
        assertThat(inputs).allSatisfy(b -> assertThat(b.refCnt()).as("input released").isZero());
        return out;
    }

    private static void assertSame(List<Object> got, List<WirePayload> sent) {
        assertThat(got).hasSameSizeAs(sent);
        for (int i = 0; i < sent.size(); i++) {
            assertThat(got.get(i)).as("frame %d", i).isInstanceOf(WirePayload.class);
            // Byte for byte: what was decoded encodes to exactly what the broker sent.
            assertThat(WireCodec.encodeFrame((WirePayload) got.get(i))).as("frame %d: %s", i, sent.get(i))
                    .isEqualTo(WireCodec.encodeFrame(sent.get(i)));
        }
    }

    @Test
    void inOneRead_everyFrameDecodes() {
        List<WirePayload> sent = brokerFrames();
        assertSame(feed(stream(sent), new int[0], MAX), sent);
    }

    @Test
    void aByteAtATime_everyFrameDecodesWholeAndInOrder() {
        List<WirePayload> sent = brokerFrames();
        byte[] all = stream(sent);
        int[] cuts = new int[all.length - 1];
        for (int i = 0; i < cuts.length; i++) {
            cuts[i] = i + 1;
        }
        assertSame(feed(all, cuts, MAX), sent);
    }

    @Test
    void splitAtEveryPoint_everyFrameDecodes() {
        List<WirePayload> sent = brokerFrames();
        byte[] all = stream(sent);
        for (int cut = 1; cut < all.length; cut++) {
            assertSame(feed(all, new int[] {cut}, MAX), sent);
        }
    }

    @Test
    void randomReads_everyFrameDecodes() {
        List<WirePayload> sent = brokerFrames();
        byte[] all = stream(sent);
        Random random = new Random(7);
        for (int round = 0; round < 300; round++) {
            int[] cuts = random.ints(1 + random.nextInt(40), 1, all.length).distinct().sorted().toArray();
            assertSame(feed(all, cuts, MAX), sent);
        }
    }

    @Test
    void aFrameOverTheClientsMaximum_isRefusedFromItsHeader_andNothingAfterItIsRead() {
        byte[] oversized = WireCodec.encodeFrame(new BinaryEventBatch(7, 0L, List.of(new byte[MAX + 1])));
        byte[] next = WireCodec.encodeFrame(new Message.Gap(7, 0, 1, 2, "queue_overflow"));
        byte[] all = new byte[FrameHeader.HEADER_LENGTH + next.length];
        System.arraycopy(oversized, 0, all, 0, FrameHeader.HEADER_LENGTH); // the header only: no payload sent
        System.arraycopy(next, 0, all, FrameHeader.HEADER_LENGTH, next.length);

        List<Object> got = feed(all, new int[] {5, FrameHeader.HEADER_LENGTH}, MAX);

        assertThat(got).hasSize(1);
        assertThat(got.get(0)).isInstanceOfSatisfying(FrameDecoder.BadHeader.class, bad -> {
            assertThat(bad.tooLarge()).isTrue();
            assertThat(bad.reason()).contains("a frame of " + (oversized.length - FrameHeader.HEADER_LENGTH) + " bytes")
                    .contains("max_frame_bytes (" + MAX + " bytes)");
        });
    }

    @Test
    void garbageInsteadOfAFrame_isOneBadHeaderNamingTheMagic() {
        byte[] garbage = Arrays.copyOf("HTTP/1.1 400 Bad Request\r\n".getBytes(StandardCharsets.US_ASCII), 40);

        List<Object> got = feed(garbage, new int[] {3}, MAX);

        assertThat(got).singleElement().isInstanceOfSatisfying(FrameDecoder.BadHeader.class,
                bad -> assertThat(bad.reason()).contains("bad magic"));
    }
}
