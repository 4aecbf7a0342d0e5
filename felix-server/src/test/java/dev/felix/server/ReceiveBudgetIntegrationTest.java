package dev.felix.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.felix.client.Event;
import dev.felix.client.FelixClient;
import dev.felix.client.Gap;
import dev.felix.client.Publisher;
import dev.felix.client.ReceivePolicy;
import dev.felix.client.StreamRef;
import dev.felix.client.SubscribeOptions;
import dev.felix.client.Subscription;
import dev.felix.client.SubscriptionHandler;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client-wide receive budget end to end: thirty subscriptions whose application never reads, in one client,
 * hold no more than the budget together (each alone could hold its 16 MiB / 8192-event queue: here every event
 * published, 3 MiB each, 90 MiB in all), under {@code drop_new} and {@code drop_old} (the surplus is dropped and
 * reported); a subscription of the same client whose application keeps up keeps receiving. Under {@code block}
 * the budget withholds credit but cannot take back what a subscription was granted: see {@code ReceiveBudget}.
 */
@Timeout(120)
class ReceiveBudgetIntegrationTest {

    @TempDir
    Path dir;

    private static final StreamRef S = StreamRef.parse("t1/default/budget");
    private static final long BUDGET = 256 << 10;
    private static final int STALLED = 30;
    private static final int EVENTS = 3_000;
    private static final int SIZE = 1024;

    @Test
    void dropOld_stalledSubscriptionsStayUnderTheBudget_andAHealthyOneKeepsReceiving() throws Exception {
        stalledSubscriptionsStayUnderTheBudget(ReceivePolicy.DROP_OLD);
    }

    @Test
    void dropNew_stalledSubscriptionsStayUnderTheBudget_andAHealthyOneKeepsReceiving() throws Exception {
        stalledSubscriptionsStayUnderTheBudget(ReceivePolicy.DROP_NEW);
    }

    private void stalledSubscriptionsStayUnderTheBudget(ReceivePolicy policy) throws Exception {
        try (TestBroker broker = TestBroker.start(dir); FelixClient pub = broker.connect();
                FelixClient c = broker.connect(b -> b.receiveBudgetBytes(BUDGET)
                        .receiveQueue(8192, 16L << 20, policy))) {
            List<Subscription> stalled = new ArrayList<>();
            for (int i = 0; i < STALLED; i++) {
                stalled.add(c.subscribe(SubscribeOptions.of(S)));
            }
            // The healthy subscription's application keeps up; under a drop policy a moment's lag past its fair
            // share (the budget over 31 subscriptions) may still cost it a reported gap, never an unreported one.
            AtomicLong next = new AtomicLong();
            AtomicLong received = new AtomicLong();
            AtomicLong outOfOrder = new AtomicLong();
            Subscription healthy = c.subscribe(SubscribeOptions.of(S), new SubscriptionHandler() {
                @Override
                public void onEvent(Event event) {
                    received.incrementAndGet();
                    if (event.offset() != next.getAndIncrement()
                            || ByteBuffer.wrap(event.payload()).getLong() != event.offset()) {
                        outOfOrder.incrementAndGet();
                    }
                }

                @Override
                public void onGap(Gap gap) {
                    if (gap.from() != next.get()) {
                        outOfOrder.incrementAndGet();
                    }
                    next.set(gap.to() + 1);
                }
            });
            Publisher p = pub.publisher(S);
            for (long i = 0; i < EVENTS; i++) {
                // One acknowledged event at a time: every broker batch is one event, so the credit each stalled
                // subscription was granted is exactly what it can be sent.
                p.publish(ByteBuffer.allocate(SIZE).putLong(i).array());
            }
            await().atMost(Duration.ofSeconds(60)).until(() -> next.get() == EVENTS);
            assertThat(outOfOrder).as("the healthy subscription got every offset in order, as an event or a gap")
                    .hasValue(0);
            assertThat(received.get()).as("it kept receiving while the stalled ones held the budget")
                    .isGreaterThan(EVENTS / 2);
            await().atMost(Duration.ofSeconds(10)).until(() -> stalledBytes(stalled) > 0);
            long held = stalledBytes(stalled);
            assertThat(held).as("the stalled subscriptions together hold no more than the budget")
                    .isLessThanOrEqualTo(BUDGET);
            assertThat(c.receiveBudgetUsedBytes()).isLessThanOrEqualTo(BUDGET);
            assertThat(c.receiveBudgetPeakBytes()).as("never more than twice the budget (fair shares)")
                    .isLessThanOrEqualTo(2 * BUDGET);
            assertThat(c.metrics().snapshot())
                    .containsEntry("felix_client_receive_budget_bytes", BUDGET)
                    .hasEntrySatisfying("felix_client_blocked_total{checkpoint=\"client_receive_budget\"}",
                            n -> assertThat(n).isPositive());
            {
                // What did not fit was dropped and will be reported, never silently lost.
                await().atMost(Duration.ofSeconds(30)).until(() -> stalled.stream()
                        .mapToLong(s -> policy == ReceivePolicy.DROP_OLD ? s.eventCount() // evicted ones were counted in
                                : s.eventCount() + s.locallyDropped()).sum() == (long) STALLED * EVENTS);
                assertThat(stalled.stream().mapToLong(Subscription::locallyDropped).sum()).isPositive();
                assertThat(stalledBytes(stalled)).isLessThanOrEqualTo(BUDGET);
            }
            healthy.close();
            stalled.forEach(Subscription::close);
            assertThat(c.receiveBudgetUsedBytes()).as("closing gives the bytes back").isZero();
        }
    }

    private static long stalledBytes(List<Subscription> stalled) {
        return stalled.stream().mapToLong(Subscription::queuedBytes).sum();
    }
}
