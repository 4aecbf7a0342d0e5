package dev.felix.server.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.server.TestBroker;
import dev.felix.wire.AckMode;
import dev.felix.wire.BinaryAckedPublishBatch;
import dev.felix.wire.BinaryPublishAck;
import dev.felix.wire.BinaryPublishBatch;
import dev.felix.wire.BinaryPublishResult;
import dev.felix.wire.BinaryRoutedPublishBatch;
import dev.felix.wire.Capabilities;
import dev.felix.wire.FrameFlags;
import dev.felix.wire.FrameHeader;
import dev.felix.wire.Message;
import dev.felix.wire.WireCodec;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The reply encoding follows what the client negotiated, frame by frame, from raw bytes: a client that sent no
 * second capability word never sees {@code server_flags_ext}, is answered JSON for JSON and the upstream binary
 * ack for {@code 0x0009}, and may not send the routed publish {@code 0x0029}; a client that negotiated
 * {@code ROUTED_BINARY_PUBLISH} gets a publish result with offsets and shard, and a routed publish whose body
 * cannot be read is answered by request id ({@code bad_request}) on a stream that stays open.
 */
@Timeout(60)
class PublishEncodingTest {

    private static final BinaryPublishBatch HELLO = new BinaryPublishBatch("t1", "default", "enc",
            List.of("hello".getBytes(StandardCharsets.UTF_8)));

    @TempDir
    Path dir;

    @Test
    void aClientWithoutTheSecondWordIsAnsweredAsBefore() throws Exception {
        try (TestBroker broker = TestBroker.start(dir); RawFelixClient raw = RawFelixClient.create(broker.server());
                RawConnection c = raw.connect()) {
            RawStream s = c.open();
            s.send(RawConnection.auth(Capabilities.ALL));
            Message.AuthOk ok = (Message.AuthOk) s.frame(0).message();
            assertThat(ok.serverFlagsExt()).as("no second word for a client that sent none").isNull();
            assertThat(s.frame(0).json()).doesNotContain("server_flags_ext");

            s.send(new Message.Publish("t1", "default", "enc", "a".getBytes(StandardCharsets.UTF_8), 1L,
                    AckMode.PER_MESSAGE, null, null));
            assertThat(s.awaitFrames(2).get(1).message()).isEqualTo(new Message.PublishOk(1, 0L, 1, 0));
            s.send(WireCodec.encodeFrame(new BinaryAckedPublishBatch(2, AckMode.PER_BATCH, HELLO)));
            assertThat(s.awaitFrames(3).get(2).payload()).isEqualTo(BinaryPublishAck.ok(2));

            // 0x0029 was never negotiated on this stream: refused, naming the capability, and the stream ends
            s.send(WireCodec.encodeFrame(new BinaryRoutedPublishBatch(3, AckMode.PER_MESSAGE, null, null, HELLO)));
            Message.ErrorMessage refused = (Message.ErrorMessage) s.awaitFrames(4).get(3).message();
            assertThat(refused.code()).isEqualTo("bad_request");
            assertThat(refused.message()).contains("ROUTED_BINARY_PUBLISH");

            String metrics = broker.scrapeMetrics();
            assertThat(metrics).contains("felix_publish_frames_total{encoding=\"json\"} 1.0");
            assertThat(metrics).contains("felix_publish_frames_total{encoding=\"binary\"} 1.0");
        }
    }

    @Test
    void aClientWithTheSecondWordGetsPublishResults() throws Exception {
        try (TestBroker broker = TestBroker.start(dir); RawFelixClient raw = RawFelixClient.create(broker.server());
                RawConnection c = raw.connect()) {
            RawStream s = c.open();
            s.send(new Message.Auth("t1", "any-token", Capabilities.ALL, Capabilities.EXT_ALL));
            Message.AuthOk ok = (Message.AuthOk) s.frame(0).message();
            assertThat(ok.serverFlagsExt()).isEqualTo(Capabilities.EXT_ALL);
            assertThat(Capabilities.has(ok.capabilities(), Capabilities.ROUTED_BINARY_PUBLISH)).isTrue();

            s.send(WireCodec.encodeFrame(new BinaryRoutedPublishBatch(1, AckMode.PER_BATCH, null, null,
                    new BinaryPublishBatch("t1", "default", "enc", List.of(new byte[] {1}, new byte[] {2})))));
            RawStream.Received first = s.awaitFrames(2).get(1);
            assertThat(first.flags()).isEqualTo(0x0030);
            assertThat(first.payload()).isEqualTo(BinaryPublishResult.ok(1, 0, 2, 0));

            // a readable prefix and an unreadable body: answered for that request, and the stream goes on
            byte[] good = WireCodec.encodeFrame(new BinaryRoutedPublishBatch(2, AckMode.PER_MESSAGE, null, null, HELLO));
            byte[] bad = good.clone();
            bad[FrameHeader.HEADER_LENGTH + 9] = 7; // route 7 does not exist
            s.send(bad);
            BinaryPublishResult refused = (BinaryPublishResult) s.awaitFrames(3).get(2).payload();
            assertThat(refused.requestId()).isEqualTo(2);
            assertThat(refused.code()).isEqualTo("bad_request");
            assertThat(refused.message()).startsWith("malformed publish batch");
            s.send(good);
            assertThat(s.awaitFrames(4).get(3).payload()).isEqualTo(BinaryPublishResult.ok(2, 2, 1, 0));

            // JSON still answers JSON on the same stream
            s.send(new Message.Publish("t1", "default", "enc", new byte[] {3}, 3L, AckMode.PER_MESSAGE, null, null));
            assertThat(s.awaitFrames(5).get(4).message()).isEqualTo(new Message.PublishOk(3, 3L, 1, 0));
            assertThat(flagsOf(bad)).isEqualTo(FrameFlags.BINARY_PUBLISH_BATCH | FrameFlags.BINARY_PUBLISH_ACKED
                    | FrameFlags.EVENT_BATCH_OFFSETS);
        }
    }

    private static int flagsOf(byte[] frame) {
        return ByteBuffer.wrap(frame).getShort(FrameHeader.FLAGS_OFFSET) & 0xFFFF;
    }
}
