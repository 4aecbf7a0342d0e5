package dev.felix.client;

import dev.felix.wire.ErrorCode;
import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.server.TestBroker;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A publisher's {@code client_publish_queue} against a real broker: with a budget of one event, every
 * asynchronous publish waits for the previous acknowledgement and all of them land, in order; under
 * drop_new a publish that finds the budget used up is refused at once with {@code overloaded} and counted,
 * and none of the accepted ones is lost; close waits for what is outstanding.
 */
@Timeout(120)
class PublisherFlowControlTest {

    private static final StreamRef FLOW = StreamRef.parse("t1/default/flow");

    @TempDir
    Path dir;

    private static long metric(FelixClient c, String name) {
        return c.metrics().snapshot().get(name);
    }

    @Test
    void aBudgetOfOneEvent_everyPublishWaitsForThePreviousAck_andAllLandInOrder() throws Exception {
        try (TestBroker broker = TestBroker.start(dir);
                FelixClient c = broker.connect(b -> b.publishQueue(1, 1 << 20, PublishQueuePolicy.BLOCK))) {
            Publisher p = c.publisher(FLOW);
            List<CompletableFuture<PublishAck>> acks = new ArrayList<>();
            for (int i = 0; i < 300; i++) {
                acks.add(p.publishAsync(new byte[] {(byte) i}));
            }
            for (int i = 0; i < acks.size(); i++) {
                assertThat(acks.get(i).get(20, TimeUnit.SECONDS).firstOffset()).isEqualTo(i);
            }
            // 300 publishes issued back to back, each admitted only once the one before was acknowledged.
            assertThat(metric(c, "felix_client_blocked_total{checkpoint=\"client_publish_queue\"}")).isPositive();
            assertThat(metric(c, "felix_client_dropped_events_total{checkpoint=\"client_publish_queue\"}")).isZero();
        }
    }

    @Test
    void dropNew_aPublishThatFindsTheBudgetUsedUp_isRefusedAtOnceWithOverloaded_andCounted() throws Exception {
        try (TestBroker broker = TestBroker.start(dir);
                FelixClient c = broker.connect(b -> b.publishQueue(1, 1 << 20, PublishQueuePolicy.DROP_NEW))) {
            Publisher p = c.publisher(FLOW);
            List<CompletableFuture<PublishAck>> accepted = new ArrayList<>();
            int refused = 0;
            for (int i = 0; i < 100_000 && refused < 20; i++) {
                try {
                    accepted.add(p.publishAsync(new byte[] {1}));
                } catch (FelixClientException e) {
                    assertThat(e.code()).isEqualTo(ErrorCode.OVERLOADED);
                    assertThat(e.getMessage()).contains("client publish queue is full", "1 events");
                    refused++;
                }
            }
            assertThat(refused).isEqualTo(20);
            for (int i = 0; i < accepted.size(); i++) {
                assertThat(accepted.get(i).get(20, TimeUnit.SECONDS).firstOffset()).as("accepted %d", i).isEqualTo(i);
            }
            assertThat(metric(c, "felix_client_dropped_events_total{checkpoint=\"client_publish_queue\"}"))
                    .isEqualTo(20);
        }
    }

    @Test
    void close_waitsForTheOutstandingAcknowledgements() throws Exception {
        try (TestBroker broker = TestBroker.start(dir); FelixClient c = broker.connect()) {
            Publisher p = c.publisher(FLOW);
            List<CompletableFuture<PublishAck>> acks = new ArrayList<>();
            for (int i = 0; i < 2_000; i++) {
                acks.add(p.publishAsync(new byte[64]));
            }

            p.close();

            assertThat(acks).allSatisfy(a -> assertThat(a).isCompletedWithValueMatching(ack -> ack.firstOffset() >= 0));
            assertThat(acks.get(acks.size() - 1).join().firstOffset()).isEqualTo(1_999);
        }
    }
}
