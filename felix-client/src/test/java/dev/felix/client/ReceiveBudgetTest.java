package dev.felix.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The client-wide receive budget ({@code client_receive_budget}) shared by every receive queue of a client: a
 * queue past its fair share cannot take more once the budget is spent (its own policy applies), an empty or
 * small queue always can, and bytes come back when taken, evicted or closed.
 */
@Timeout(30)
class ReceiveBudgetTest {

    private static final StreamRef S = StreamRef.parse("t1/default/s");
    private final AtomicInteger resumes = new AtomicInteger();

    private ReceiveQueue queue(ReceiveBudget budget, ReceivePolicy policy) {
        return new ReceiveQueue(1_000, 1 << 20, policy, resumes::incrementAndGet, budget);
    }

    private static Event event(long offset, int size) {
        return new Event(S, 0, offset, new byte[size]);
    }

    @Test
    void aStalledQueueStopsAtTheBudget_whileAnEmptyOneStillTakesEvents() {
        ReceiveBudget budget = new ReceiveBudget(1_000);
        ReceiveQueue stalled = queue(budget, ReceivePolicy.DROP_NEW);
        ReceiveQueue healthy = queue(budget, ReceivePolicy.DROP_NEW);
        long offset = 0;
        while (stalled.hasRoom(100)) {
            stalled.add(event(offset++, 100));
        }
        assertThat(budget.used()).as("filled up to the budget, not its own 1 MiB limit").isEqualTo(1_000);
        assertThat(stalled.hasRoom(1)).isFalse();
        assertThat(healthy.hasRoom(100)).as("an empty queue").isTrue();
        healthy.add(event(0, 100));
        assertThat(healthy.hasRoom(100)).as("within its fair share (1000 / 2 queues)").isTrue();
        healthy.add(event(1, 100));
        assertThat(healthy.hasRoom(400)).as("past its fair share while the budget is spent").isFalse();
        assertThat(budget.exhausted.sum()).isPositive();
    }

    @Test
    void block_addSaysPauseOnceTheBudgetIsSpent_andResumesWhenTheQueueDrains() throws Exception {
        ReceiveBudget budget = new ReceiveBudget(300);
        ReceiveQueue other = queue(budget, ReceivePolicy.BLOCK);
        ReceiveQueue q = queue(budget, ReceivePolicy.BLOCK);
        assertThat(other.add(event(0, 200))).isTrue();
        assertThat(q.add(event(0, 100))).as("300 of 300: still within").isTrue();
        assertThat(q.add(event(1, 100))).as("past the budget and past its share (150): pause reading").isFalse();
        assertThat(q.add(event(2, 100))).as("decoded from the same read: kept, never dropped").isFalse();
        q.poll(0);
        assertThat(resumes).as("400 held of 300, 200 here: still over its share").hasValue(0);
        q.poll(0);
        assertThat(resumes).as("back within the budget: read again").hasValue(1);
    }

    @Test
    void dropOld_evictsItsOwnOldestToFitTheBudget() {
        ReceiveBudget budget = new ReceiveBudget(300);
        ReceiveQueue q = queue(budget, ReceivePolicy.DROP_OLD);
        q.add(event(0, 100));
        q.add(event(1, 100));
        q.add(event(2, 100));
        assertThat(q.hasRoom(100)).isFalse();
        assertThat(q.evictOldest(100, S)).isEqualTo(1);
        q.add(event(3, 100));
        assertThat(budget.used()).isEqualTo(300);
    }

    @Test
    void bytesGoBackWhenTakenEvictedOrClosed() throws Exception {
        ReceiveBudget budget = new ReceiveBudget(10_000);
        ReceiveQueue a = queue(budget, ReceivePolicy.BLOCK);
        ReceiveQueue b = queue(budget, ReceivePolicy.BLOCK);
        a.add(event(0, 100));
        a.add(event(1, 100));
        b.add(event(0, 300));
        assertThat(budget.used()).isEqualTo(500);
        a.poll(0);
        assertThat(budget.used()).isEqualTo(400);
        b.close();
        assertThat(budget.used()).isEqualTo(100);
        assertThat(budget.peak()).isEqualTo(500);
        assertThat(b.add(event(1, 50))).as("a closed queue keeps nothing").isTrue();
        assertThat(budget.used()).isEqualTo(100);
    }
}
