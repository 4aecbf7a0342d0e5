package dev.felix.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.felix.client.Event;
import dev.felix.client.FelixClient;
import dev.felix.client.Publisher;
import dev.felix.client.StreamRef;
import dev.felix.client.StreamSpec;
import dev.felix.client.SubscribeOptions;
import dev.felix.client.Subscription;
import dev.felix.server.protocol.PayloadBlocks;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link PayloadPressure}: events kept long (one per quiet stream) copied between many a busy stream's ring lets go
 * soon keep a whole payload block each; with the broker's check they are copied out into arrays once kept over a
 * second, the blocks go back, and every quiet stream still replays its event.
 */
@Timeout(120)
class PayloadPressureTest {

    private static final int QUIET_STREAMS = 40;
    private static final int QUIET_PAYLOAD = 100;
    private static final int BUSY_PAYLOAD = 4 << 10;
    /** The busy stream's ring: 64 KiB, so it lets go of what it got before the last quiet event. */
    private static final int RING_BYTES = 64 << 10;

    @TempDir
    Path dir;

    private static byte[] payload(int i, int size) {
        return PooledPayloadsIntegrationTest.payload(i, size);
    }

    private static double metric(TestBroker broker, String name) {
        return CleanCloseGaugesTest.gauge(broker, name);
    }

    /**
     * One event to each quiet stream, each followed by a block's worth (64 KiB) of the busy stream's; the broker has
     * one event loop (the default), so they are copied into one run of blocks.
     */
    private static List<StreamRef> publishQuietBetweenBusy(FelixClient c) {
        StreamRef busy = StreamRef.parse("t1/default/busy");
        c.streams().create(busy, StreamSpec.ephemeral(1));
        List<StreamRef> quiet = new ArrayList<>();
        for (int i = 0; i < QUIET_STREAMS; i++) {
            StreamRef q = StreamRef.parse("t1/default/quiet-" + i);
            c.streams().create(q, StreamSpec.ephemeral(1));
            quiet.add(q);
        }
        List<byte[]> blockOfBusy = new ArrayList<>();
        for (int k = 0; k < PayloadBlocks.BLOCK_BYTES / BUSY_PAYLOAD; k++) {
            blockOfBusy.add(payload(k, BUSY_PAYLOAD));
        }
        try (Publisher b = c.publisher(busy)) {
            for (int i = 0; i < QUIET_STREAMS; i++) {
                try (Publisher p = c.publisher(quiet.get(i))) {
                    p.publish(payload(i, QUIET_PAYLOAD));
                }
                b.publishBatch(blockOfBusy);
            }
        }
        return quiet;
    }

    @Test
    void withoutTheCheck_eachQuietEvent_keepsAWholeBlockInUse() throws Exception {
        try (TestBroker broker = TestBroker.start(dir, Map.of("ring_bytes", Integer.toString(RING_BYTES),
                "pooled_payloads_slack_bytes", Long.toString(Long.MAX_VALUE)));
                FelixClient c = broker.connect()) {
            publishQuietBetweenBusy(c);
            long held = (long) metric(broker, "felix_pooled_payload_bytes");
            assertThat(held).as("the busy ring's 64 KiB and the quiet events")
                    .isLessThan(RING_BYTES + BUSY_PAYLOAD + 4L * (4 + BUSY_PAYLOAD) + 2L * QUIET_STREAMS * QUIET_PAYLOAD);
            assertThat(metric(broker, "felix_payload_block_in_use_bytes")).as("a block per quiet event")
                    .isGreaterThanOrEqualTo((double) QUIET_STREAMS * PayloadBlocks.BLOCK_BYTES);
            assertThat(metric(broker, "felix_payload_settles_total")).isZero();
        }
    }

    @Test
    void eventsKeptOverASecond_areCopiedOutOfTheirBlocks_theBlocksGoBack_andEveryQuietStreamStillReplaysItsEvent()
            throws Exception {
        try (TestBroker broker = TestBroker.start(dir, Map.of("ring_bytes", Integer.toString(RING_BYTES),
                "pooled_payloads_slack_bytes", Integer.toString(1 << 20)));
                FelixClient c = broker.connect()) {
            List<StreamRef> quiet = publishQuietBetweenBusy(c);
            await().atMost(Duration.ofSeconds(30)).until(() ->
                    metric(broker, "felix_payload_settled_bytes_total") >= (double) QUIET_STREAMS * QUIET_PAYLOAD);
            await().atMost(Duration.ofSeconds(10)).until(() ->
                    metric(broker, "felix_payload_block_in_use_bytes") <= 8.0 * PayloadBlocks.BLOCK_BYTES);
            assertThat(metric(broker, "felix_payload_settles_total")).isGreaterThanOrEqualTo(1);
            assertThat(metric(broker, "felix_pooled_payload_bytes")).as("the quiet events are arrays now")
                    .isLessThanOrEqualTo(RING_BYTES + BUSY_PAYLOAD + 4.0 * (4 + BUSY_PAYLOAD));

            for (int i = 0; i < QUIET_STREAMS; i++) {
                try (Subscription s = c.subscribe(SubscribeOptions.of(quiet.get(i)).fromEarliest())) {
                    Event e = (Event) s.next(Duration.ofSeconds(10));
                    assertThat(e.offset()).isZero();
                    assertThat(e.payload()).as("quiet stream %d", i).isEqualTo(payload(i, QUIET_PAYLOAD));
                }
            }
        }
    }
}
