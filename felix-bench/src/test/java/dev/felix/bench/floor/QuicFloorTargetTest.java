package dev.felix.bench.floor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.felix.bench.system.Target;
import dev.felix.bench.system.Targets;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The transport floor over real QUIC on loopback: every subscriber of a topic gets every message in order,
 * confirmed publishes and flushes return on the server's acks, and the frame splitter passes on whole frames only
 * and refuses an oversized length before allocating.
 */
@Timeout(60)
class QuicFloorTargetTest {

    @Test
    void everySubscriberGetsEveryMessageInOrder_confirmedAndBatched_andASubscriberThatLeavesIsDropped()
            throws Exception {
        try (Target floor = Targets.byName("quic-floor", Map.of()).start()) {
            Collector a = new Collector();
            Collector b = new Collector();
            AutoCloseable subA = floor.subscribe("t", a);
            AutoCloseable subB = floor.subscribe("t", b);
            Collector other = new Collector();
            floor.subscribe("elsewhere", other);
            List<byte[]> sent = new ArrayList<>();
            try (Target.Publisher publisher = floor.publisher("t")) {
                for (int i = 0; i < 3; i++) {
                    byte[] m = message(i, 16);
                    publisher.publishConfirmed(m); // returns on the server's ack
                    sent.add(m);
                }
                List<byte[]> batch = new ArrayList<>();
                for (int i = 3; i < 503; i++) {
                    batch.add(message(i, i == 100 ? 200_000 : i % 2000)); // one spans many packets and reads
                }
                publisher.publishBatch(batch);
                publisher.flush();
                sent.addAll(batch);

                await().atMost(Duration.ofSeconds(30)).until(() -> a.count() == sent.size() && b.count() == sent.size());
                assertThat(a.messages()).containsExactlyElementsOf(sent);
                assertThat(b.messages()).containsExactlyElementsOf(sent);
                assertThat(other.count()).as("another topic's subscriber").isZero();

                subB.close();
                byte[] last = message(503, 8);
                publisher.publishConfirmed(last);
                await().atMost(Duration.ofSeconds(30)).until(() -> a.count() == sent.size() + 1);
                assertThat(a.messages().get(sent.size())).isEqualTo(last);
                assertThat(b.count()).isEqualTo(sent.size());
            }
            subA.close();
            assertThat(floor.brokerCpuNanos()).as("the server's threads are measured").isPositive();
            assertThat(floor.brokerInThisProcess()).isTrue();
            assertThat(floor.backpressure()).isFalse();
        }
    }

    @Test
    void theSplitterPassesOnWholeFramesOnly_howeverTheBytesArrive() {
        ByteBuf all = Unpooled.buffer();
        for (int i = 0; i < 20; i++) {
            FloorFrames.write(all, FloorFrames.CONFIRMED, message(i, i * 7));
        }
        byte[] bytes = new byte[all.readableBytes()];
        all.readBytes(bytes);
        EmbeddedChannel channel = new EmbeddedChannel(new FloorFrames.Runs());
        for (int at = 0; at < bytes.length; at += 3) {
            channel.writeInbound(Unpooled.wrappedBuffer(bytes, at, Math.min(3, bytes.length - at)));
        }
        ByteBuf joined = Unpooled.buffer();
        ByteBuf run;
        while ((run = channel.readInbound()) != null) {
            int at = run.readerIndex();
            while (at < run.writerIndex()) {
                at += FloorFrames.HEADER + FloorFrames.length(run, at);
            }
            assertThat(at).as("a run ends at a frame's end").isEqualTo(run.writerIndex());
            joined.writeBytes(run);
            run.release();
        }
        byte[] out = new byte[joined.readableBytes()];
        joined.readBytes(out);
        assertThat(out).isEqualTo(bytes);
        assertThat(channel.finish()).isFalse();
    }

    @Test
    void aFrameDeclaringMoreThanTheLimit_isRefusedBeforeAnythingIsAllocated() {
        EmbeddedChannel channel = new EmbeddedChannel(new FloorFrames.Runs());
        ByteBuf huge = Unpooled.buffer().writeByte(FloorFrames.BATCH).writeInt(Integer.MAX_VALUE);

        assertThatThrownBy(() -> channel.writeInbound(huge)).isInstanceOf(DecoderException.class)
                .hasMessageContaining("at most " + FloorFrames.MAX_LENGTH);
    }

    private static byte[] message(int seq, int size) {
        byte[] m = new byte[4 + size];
        ByteBuffer.wrap(m).putInt(seq);
        for (int i = 4; i < m.length; i++) {
            m[i] = (byte) (seq + i);
        }
        return m;
    }

    /** Copies what it is lent, as a subscriber that keeps its messages would. */
    private static final class Collector implements Target.Handler {
        private final List<byte[]> received = new ArrayList<>();

        @Override
        public synchronized void onMessage(byte[] message) {
            received.add(message);
        }

        @Override
        public synchronized void onMessage(ByteBuffer message) {
            byte[] copy = new byte[message.remaining()];
            message.get(copy);
            received.add(copy);
        }

        synchronized int count() {
            return received.size();
        }

        synchronized List<byte[]> messages() {
            return new ArrayList<>(received);
        }
    }
}
