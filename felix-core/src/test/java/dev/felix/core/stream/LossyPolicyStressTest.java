package dev.felix.core.stream;

import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.core.Checkpoint;
import dev.felix.core.QueueLimits;
import dev.felix.core.QueuePolicy;
import dev.felix.core.StartPosition;
import dev.felix.core.testing.Await;
import dev.felix.core.testing.Collector;
import dev.felix.core.testing.Fixture;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.RepetitionInfo;

/**
 * Lossy policies with a consumer as fast as the writer: the consumer often empties its queue between
 * the writer finding it full and the writer making room ({@code drop_old}) or queuing the gap
 * ({@code drop_new}), which must not lose the wake-up. Every subscriber must reach the tail with every
 * offset accounted for, and the gaps must add up to the drop counter.
 */
class LossyPolicyStressTest {

    private static final int TOTAL = 30_000;

    private Fixture fx;

    @AfterEach
    void close() {
        if (fx != null) {
            fx.close();
        }
    }

    @RepeatedTest(60) // the lost wake-up it guards against showed up in ~7% of runs
    void lossyPolicies_consumerAsFastAsTheWriter_neverStall_andAccountForEveryOffset(RepetitionInfo rep) {
        fx = new Fixture(Fixture.config());
        Shard shard = fx.shard("stress-" + rep.getCurrentRepetition());
        List<Collector> subscribers = new ArrayList<>();
        for (int limit = 1; limit <= 4; limit++) {
            subscribers.add(fx.draining(shard, StartPosition.LATEST, QueuePolicy.DROP_OLD, new QueueLimits(limit, 1 << 20)));
            subscribers.add(fx.draining(shard, StartPosition.LATEST, QueuePolicy.DROP_NEW, new QueueLimits(limit, 1 << 20)));
        }
        CompletableFuture<Void> load = CompletableFuture.runAsync(() -> {
            Random random = new Random(rep.getCurrentRepetition());
            int sent = 0;
            while (sent < TOTAL) {
                int n = Math.min(TOTAL - sent, 1 + random.nextInt(8));
                String[] p = new String[n];
                for (int k = 0; k < n; k++) {
                    p[k] = Integer.toString(sent++);
                }
                Fixture.publishWithBackpressure(shard, Fixture.request(null, p));
            }
        });
        Await.get(load);
        Await.until("all taken", () -> shard.info().nextOffset() == TOTAL);

        long gapEvents = 0;
        for (Collector c : subscribers) {
            c.awaitCoveredTo(TOTAL);
            for (GapNotice g : c.gaps()) {
                gapEvents += g.missed();
            }
            for (String e : c.events()) {
                int eq = e.indexOf('=');
                assertThat(e.substring(eq + 1)).isEqualTo(e.substring(0, eq));
            }
        }
        assertThat(gapEvents).isEqualTo(fx.broker.metrics().dropped(Checkpoint.SUBSCRIBER_QUEUE).sum());
    }
}
