package dev.felix.cluster.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Listener deliveries: every change in order, on one thread; a bounded backlog that coalesces to the newest. */
class ChangeNotifierTest {

    private final ExecutorService thread = Executors.newSingleThreadExecutor();

    @AfterEach
    void tearDown() {
        thread.shutdownNow();
    }

    private static ClusterState version(long v) {
        return new ClusterState(null, 0, v, new java.util.TreeMap<>(), new java.util.TreeSet<>(),
                new java.util.TreeSet<>(), new java.util.TreeMap<>(), new java.util.TreeMap<>(),
                new java.util.TreeMap<>(ClusterState.KEY_ORDER));
    }

    @Test
    void everyChangeInCommitOrder_onOneThread() {
        List<Long> seen = new CopyOnWriteArrayList<>();
        List<String> threads = new CopyOnWriteArrayList<>();
        ChangeNotifier n = new ChangeNotifier(thread, s -> {
            seen.add(s.version());
            threads.add(Thread.currentThread().getName());
        }, 16);
        for (long v = 1; v <= 200; v++) {
            n.offer(version(v));
            if (v % 10 == 0) {
                long upTo = v;
                await().atMost(Duration.ofSeconds(5)).until(() -> seen.size() == upTo);
            }
        }
        assertThat(seen).hasSize(200).isSorted().doesNotHaveDuplicates();
        assertThat(threads).containsOnly(threads.get(0));
        assertThat(n.coalesced()).isZero();
    }

    @Test
    void aListenerThatFallsBehindTheBacklogGetsTheNewestNext() throws Exception {
        List<Long> seen = new CopyOnWriteArrayList<>();
        CountDownLatch blocked = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ChangeNotifier n = new ChangeNotifier(thread, s -> {
            if (s.version() == 1) {
                blocked.countDown();
                try {
                    release.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            seen.add(s.version());
        }, 4);
        n.offer(version(1));
        assertThat(blocked.await(5, TimeUnit.SECONDS)).isTrue();
        for (long v = 2; v <= 10; v++) {
            n.offer(version(v));
        }
        release.countDown();
        await().atMost(Duration.ofSeconds(5)).until(() -> seen.contains(10L));
        // 1 was being delivered; 2..10 overflowed a backlog of 4: the newest survives, order holds
        assertThat(seen).isSorted().startsWith(1L).endsWith(10L);
        assertThat(seen.size()).isLessThanOrEqualTo(4);
        assertThat(n.coalesced()).isEqualTo(10 - seen.size());
    }

    @Test
    void aFailingListenerDoesNotStopDeliveries() {
        List<Long> seen = new CopyOnWriteArrayList<>();
        ChangeNotifier n = new ChangeNotifier(thread, s -> {
            seen.add(s.version());
            if (s.version() == 2) {
                throw new IllegalStateException("boom");
            }
        }, 8);
        for (long v = 1; v <= 4; v++) {
            n.offer(version(v));
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> seen.size() == 4);
        assertThat(seen).containsExactly(1L, 2L, 3L, 4L);
    }
}
