package dev.felix.cluster.relay;

import static dev.felix.cluster.relay.RelayFixture.batch;
import static dev.felix.cluster.relay.RelayFixture.key;
import static dev.felix.cluster.relay.RelayFixture.range;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.felix.cluster.relay.RelayFixture.Sink;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The fence holds against a worker delivering on another thread at that moment: once {@code fence} returns, not
 * one more frame reaches the fenced sink, while the rest of the shard's subscribers get everything.
 */
@Timeout(60)
class RelayFenceRaceTest {

    @Test
    void afterAFence_noNewerEventReachesTheFencedSubscriber() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            RelaySettings settings = RelaySettings.builder().workers(2).queueBatches(1 << 16)
                    .dispatcherBacklog(1 << 16).deadline(Duration.ofSeconds(60)).build();
            Relay relay = Relay.create(settings, System::nanoTime, pool, new SimpleMeterRegistry(), null);
            for (int round = 0; round < 20; round++) {
                RelayKey k = key("s" + round);
                Sink fenced = new Sink();
                RelayedSubscription sub = relay.subscribe(k, StreamKind.EPHEMERAL, fenced, false, 0);
                Sink control = new Sink();
                relay.subscribe(k, StreamKind.EPHEMERAL, control, false, 0);
                int batches = 2_000;
                Thread source = new Thread(() -> {
                    for (int i = 0; i < batches; i++) {
                        relay.receive(k, batch(i * 2L, 2));
                    }
                });
                source.start();
                int fenceAfter = 100 + round * 150; // fence at a different point of the stream each round
                await().atMost(Duration.ofSeconds(20)).until(() -> fenced.offsets().size() > fenceAfter);
                assertThat(sub.fence(Long.MAX_VALUE)).isTrue(); // while the worker is delivering
                int seen = fenced.offsets().size();
                source.join();
                await().atMost(Duration.ofSeconds(20)).until(() -> control.offsets().size() == batches * 2);
                assertThat(fenced.offsets()).as("round " + round).hasSize(seen)
                        .containsExactlyElementsOf(range(0, seen));
                assertThat(control.offsets()).containsExactlyElementsOf(range(0, batches * 2L));
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
