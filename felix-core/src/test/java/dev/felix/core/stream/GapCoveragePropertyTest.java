package dev.felix.core.stream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.core.Checkpoint;
import dev.felix.core.CoreMetrics;
import dev.felix.core.QueueLimits;
import dev.felix.core.QueuePolicy;
import dev.felix.core.StartPosition;
import dev.felix.core.testing.Ack;
import dev.felix.core.testing.Collector;
import dev.felix.core.testing.Coverage;
import dev.felix.core.testing.Fixture;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Property: under {@code drop_new} and {@code drop_old}, whatever the publish sizes, queue limits, ring
 * size, start position and the consumer's pause/drain schedule, the consumer's view covers every
 * offset from its start to the tail exactly once, in order (events ∪ gap ranges = [start, tail)), the
 * events it does get are exactly the published payloads at their offsets, and the gaps add up to what
 * the broker counted as dropped or lost to the ring.
 *
 * <p>A seeded generator of random scenarios (no shrinking): each case is named by its seed and prints
 * its scenario when it fails. {@code -Dfelix.property.seed=N} moves the whole series to another base
 * seed; {@code -Dfelix.property.cases=N} changes how many cases run.
 */
class GapCoveragePropertyTest {

    private static final long BASE_SEED = Long.getLong("felix.property.seed", 0x5EEDL);
    private static final int CASES = Integer.getInteger("felix.property.cases", 200);

    /** One generated scenario. */
    record Scenario(long seed, QueuePolicy policy, QueueLimits limits, int ringEvents, List<Integer> before,
            String start, List<Step> steps) {

        static Scenario generate(long seed) {
            Random r = new Random(seed);
            QueuePolicy policy = r.nextBoolean() ? QueuePolicy.DROP_NEW : QueuePolicy.DROP_OLD;
            long bytes = r.nextBoolean() ? 1L << 20 : 2 + r.nextInt(39);
            QueueLimits limits = new QueueLimits(1 + r.nextInt(6), bytes);
            int ring = 4 + r.nextInt(37);
            List<Integer> before = new ArrayList<>();
            for (int i = r.nextInt(13); i > 0; i--) {
                before.add(1 + r.nextInt(5)); // payload length of each single-event publish
            }
            String start = List.of("latest", "earliest", "middle").get(r.nextInt(3));
            List<Step> steps = new ArrayList<>();
            for (int i = 1 + r.nextInt(40); i > 0; i--) {
                if (r.nextInt(10) < 6) {
                    int[] lengths = new int[1 + r.nextInt(5)];
                    for (int k = 0; k < lengths.length; k++) {
                        lengths[k] = 1 + r.nextInt(6);
                    }
                    steps.add(new Publish(lengths));
                } else {
                    steps.add(new Poll(r.nextInt(4) == 0 ? Integer.MAX_VALUE : 1 + r.nextInt(4)));
                }
            }
            return new Scenario(seed, policy, limits, ring, before, start, steps);
        }

        @Override
        public String toString() {
            return "seed=" + seed + " policy=" + policy.wireName() + " queue=" + limits.events() + "ev/"
                    + limits.bytes() + "B ring=" + ringEvents + " before=" + before + " start=" + start
                    + " steps=" + steps;
        }
    }

    sealed interface Step permits Publish, Poll {
    }

    /** One publish of {@code lengths.length} events (one batch: publishes are awaited one at a time). */
    record Publish(int[] lengths) implements Step {
        @Override
        public String toString() {
            return "publish" + java.util.Arrays.toString(lengths);
        }
    }

    /** The consumer wakes up and polls at most {@code max} items, then pauses again. */
    record Poll(int max) implements Step {
        @Override
        public String toString() {
            return max == Integer.MAX_VALUE ? "drain" : "poll" + max;
        }
    }

    @TestFactory
    Stream<DynamicTest> consumerView_coversEveryOffsetExactlyOnce_withThePublishedPayloads() {
        return LongStream.range(0, CASES).mapToObj(i -> {
            long seed = BASE_SEED + i;
            Scenario scenario = Scenario.generate(seed);
            return DynamicTest.dynamicTest("seed " + seed + " " + scenario.policy().wireName(), () -> {
                try {
                    check(scenario);
                } catch (AssertionError e) {
                    throw new AssertionError("falsified by " + scenario + "\n" + e.getMessage(), e);
                }
            });
        });
    }

    private static void check(Scenario s) {
        try (Fixture fx = new Fixture(Fixture.config().withShardThreads(1).withRing(s.ringEvents(), 1L << 20))) {
            Shard shard = fx.shard("property");
            Map<Long, String> published = new HashMap<>();
            int[] seq = {0};
            for (int length : s.before()) {
                publish(shard, new int[] {length}, published, seq);
            }
            ShardInfo info = shard.info();
            StartPosition start = switch (s.start()) {
                case "latest" -> StartPosition.LATEST;
                case "earliest" -> StartPosition.EARLIEST;
                default -> StartPosition.at(info.oldestOffset()
                        + new Random(s.seed()).nextInt((int) (info.nextOffset() - info.oldestOffset() + 1)));
            };
            Collector consumer = fx.manual(shard, start, s.policy(), s.limits());

            for (Step step : s.steps()) {
                if (step instanceof Publish p) {
                    publish(shard, p.lengths(), published, seq);
                } else {
                    consumer.poll(((Poll) step).max());
                }
            }
            long tail = shard.info().nextOffset();
            consumer.awaitCoveredTo(tail);

            List<Delivery> view = consumer.deliveries();
            assertThat(Coverage.walk(consumer.startOffset(), view)).isEqualTo(tail);
            long gapEvents = 0;
            for (Delivery d : view) {
                if (d instanceof EventBatch b) {
                    for (int i = 0; i < b.eventCount(); i++) {
                        long offset = b.baseOffset() + i;
                        assertThat(new String(b.payload(i), StandardCharsets.UTF_8))
                                .as("payload at offset %d", offset).isEqualTo(published.get(offset));
                    }
                } else {
                    GapNotice g = (GapNotice) d;
                    assertThat(g.reason()).isIn(GapNotice.Reason.QUEUE_OVERFLOW, GapNotice.Reason.RETENTION);
                    gapEvents += g.missed();
                }
            }
            CoreMetrics m = fx.broker.metrics();
            assertThat(gapEvents).as("gaps add up to what the broker counted as lost")
                    .isEqualTo(m.dropped(Checkpoint.SUBSCRIBER_QUEUE).sum() + m.retentionMissedEvents.sum());
        }
    }

    /** Publishes one batch; payload {@code n:xxx} with the given lengths of x, recorded by offset. */
    private static void publish(Shard shard, int[] lengths, Map<Long, String> published, int[] seq) {
        String[] payloads = new String[lengths.length];
        for (int k = 0; k < lengths.length; k++) {
            payloads[k] = (seq[0]++) + ":" + "x".repeat(lengths[k]);
        }
        Ack ack = Fixture.publish(shard, payloads);
        for (int k = 0; k < payloads.length; k++) {
            published.put(ack.firstOffset() + k, payloads[k]);
        }
    }
}
