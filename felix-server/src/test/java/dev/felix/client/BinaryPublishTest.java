package dev.felix.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.felix.server.TestBroker;
import dev.felix.wire.ErrorCode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The SDK's acknowledged publishes against a real broker that negotiated {@code ROUTED_BINARY_PUBLISH}: every
 * one ({@code publish}, {@code publishAsync} with and without a key, {@code publishBatch*}, the cluster SDK's
 * {@code publishToShardAsync}) travels as a routed binary batch — the broker counts it under
 * {@code felix_publish_frames_total{encoding="binary"}} and no JSON publish — and its acknowledgement carries
 * the first offset, count and shard; refusals keep their stable code and message. (The broker side of a client
 * that did not negotiate it: {@code dev.felix.server.hostile.PublishEncodingTest}.)
 */
@Timeout(60)
class BinaryPublishTest {

    private static final StreamRef ONE = StreamRef.parse("t1/default/one");
    private static final StreamRef FOUR = StreamRef.parse("t1/default/four");

    @TempDir
    Path dir;

    @Test
    void acknowledgedPublishesGoBinaryAndTheirAcksCarryOffsetsCountAndShard() throws Exception {
        try (TestBroker broker = TestBroker.start(dir); FelixClient c = broker.connect()) {
            c.streams().create(ONE, new StreamSpec(1, true, "on_commit", null, null));
            c.streams().create(FOUR, new StreamSpec(4, false, null, null, null));
            Publisher one = c.publisher(ONE);
            assertThat(one.publish(utf8("a"))).isEqualTo(new PublishAck(0, 0, 1));
            assertThat(one.publishBatch(List.of(utf8("b"), utf8("c"), utf8("d")))).isEqualTo(new PublishAck(0, 1, 3));
            assertThat(one.publishAsync(utf8("e")).get(10, TimeUnit.SECONDS)).isEqualTo(new PublishAck(0, 4, 1));
            assertThat(one.publishBatchAsync(null, List.of(utf8("f"), utf8("g"))).get(10, TimeUnit.SECONDS))
                    .isEqualTo(new PublishAck(0, 5, 2));

            Publisher four = c.publisher(FOUR);
            assertThat(four.publishToShardAsync(2, utf8("x")).get(10, TimeUnit.SECONDS)).isEqualTo(new PublishAck(2, 0, 1));
            assertThat(four.publishToShardAsync(2, utf8("y")).get(10, TimeUnit.SECONDS)).isEqualTo(new PublishAck(2, 1, 1));
            PublishAck keyed = four.publishAsync("user-42", utf8("k1")).get(10, TimeUnit.SECONDS);
            PublishAck again = four.publishAsync("user-42", utf8("k2")).get(10, TimeUnit.SECONDS);
            assertThat(again.shard()).as("a key always lands on the same shard").isEqualTo(keyed.shard());
            assertThat(again.firstOffset()).isEqualTo(keyed.firstOffset() + 1);
            assertThat(keyed.shard()).isEqualTo(ShardHash.of("user-42", 4));

            assertThat(frames(broker, "binary")).as("every publish went binary").isEqualTo(8);
            assertThat(frames(broker, "json")).isZero();

            // what went binary arrives intact, in order, with its offsets
            Subscription sub = c.subscribe(SubscribeOptions.of(ONE).fromEarliest());
            List<String> got = new ArrayList<>();
            while (got.size() < 7) {
                Item item = sub.next(Duration.ofSeconds(10));
                assertThat(item).isInstanceOf(Event.class);
                Event e = (Event) item;
                assertThat(e.offset()).isEqualTo(got.size());
                got.add(new String(e.payload(), StandardCharsets.UTF_8));
            }
            assertThat(got).containsExactly("a", "b", "c", "d", "e", "f", "g");
        }
    }

    @Test
    void refusalsKeepTheirCodeAndMessage() throws Exception {
        try (TestBroker broker = TestBroker.start(dir, Map.of("auto_create", "false")); FelixClient c = broker.connect()) {
            c.streams().create(FOUR, new StreamSpec(4, false, null, null, null)); // the tenant exists, "nope" does not
            Publisher nope = c.publisher(StreamRef.parse("t1/default/nope"));
            assertThatThrownBy(() -> nope.publish(utf8("x")))
                    .isInstanceOfSatisfying(FelixClientException.class, e -> {
                        assertThat(e.code()).isEqualTo(ErrorCode.NOT_FOUND);
                        assertThat(e.getMessage()).contains("nope");
                    });
            Publisher four = c.publisher(FOUR);
            assertThatThrownBy(() -> four.publishToShardAsync(9, utf8("x")).get(10, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class).cause()
                    .isInstanceOfSatisfying(FelixClientException.class, e -> {
                        assertThat(e.code()).isEqualTo(ErrorCode.BAD_REQUEST);
                        assertThat(e.getMessage()).contains("has 4 shards; there is no shard 9");
                    });
            // the refusals were answers on a stream that stays usable
            assertThat(four.publishToShardAsync(1, utf8("y")).get(10, TimeUnit.SECONDS)).isEqualTo(new PublishAck(1, 0, 1));
            assertThat(frames(broker, "binary")).isEqualTo(3);
            assertThat(frames(broker, "json")).isZero();
        }
    }

    @Test
    void aFrameOverTheBrokersLimitIsTooLarge() throws Exception {
        int brokerMax = 64 * 1024;
        try (TestBroker broker = TestBroker.start(dir, Map.of("max_frame_bytes", Integer.toString(brokerMax)));
                FelixClient c = broker.connect(b -> b.maxFrameBytes(16 << 20))) {
            Publisher p = c.publisher(ONE);
            assertThat(p.publish(utf8("small")).firstOffset()).isZero();
            CompletableFuture<PublishAck> big = p.publishAsync(new byte[brokerMax + 1]);
            assertThatThrownBy(() -> big.get(10, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class).cause()
                    .isInstanceOfSatisfying(FelixClientException.class, e -> {
                        assertThat(e.code()).isEqualTo(ErrorCode.TOO_LARGE);
                        assertThat(e.getMessage()).contains("max_frame_bytes");
                    });
            assertThat(frames(broker, "binary")).isEqualTo(1);
        }
    }

    /** {@code felix_publish_frames_total{encoding}} as the broker exposes it. */
    static long frames(TestBroker broker, String encoding) throws Exception {
        String prefix = "felix_publish_frames_total{encoding=\"" + encoding + "\"}";
        return (long) broker.scrapeMetrics().lines().filter(l -> l.startsWith(prefix))
                .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
