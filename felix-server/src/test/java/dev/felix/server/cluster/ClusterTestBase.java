package dev.felix.server.cluster;

import static org.awaitility.Awaitility.await;

import dev.felix.client.PublishAck;
import dev.felix.client.Publisher;
import dev.felix.cluster.ShardKey;
import dev.felix.cluster.ShardPlacement;
import dev.felix.server.FelixServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * What every in-process cluster test shares: a temporary directory for the nodes, the {@link TestCluster} a test
 * starts in it (closed after each test, its clients first), and a look-up of a unit's placement.
 */
public abstract class ClusterTestBase {

    @TempDir
    protected Path dir;

    /** Set by the test ({@code cluster = TestCluster.startThree(dir)}); closed after it. */
    protected TestCluster cluster;

    @AfterEach
    void closeCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    /**
     * Publishes {@code payload} with {@code publisher} until the broker accepts it (a new shard's leader may refuse
     * at first), for at most {@code within}. When it never does, the failure lists every refusal seen, counted, and
     * how long the slowest attempt took (an attempt still waiting for its acknowledgement at the deadline shows as no
     * refusal at all): the reason a CI run failed is then in its report, not only "not fulfilled".
     */
    protected static PublishAck publishUntilAccepted(Publisher publisher, byte[] payload, Duration within) {
        Map<String, Integer> refusals = new ConcurrentHashMap<>();
        AtomicLong slowestMs = new AtomicLong();
        AtomicReference<PublishAck> accepted = new AtomicReference<>();
        try {
            await().atMost(within).until(() -> {
                long start = System.nanoTime();
                try {
                    accepted.set(publisher.publish(payload));
                    return true;
                } catch (RuntimeException e) {
                    refusals.merge(e.getClass().getSimpleName() + ": " + e.getMessage(), 1, Integer::sum);
                    return false;
                } finally {
                    slowestMs.accumulateAndGet((System.nanoTime() - start) / 1_000_000, Math::max);
                }
            });
        } catch (ConditionTimeoutException e) {
            throw new AssertionError("no publish to " + publisher.stream() + " was accepted within " + within
                    + " (slowest attempt " + slowestMs + " ms); refusals: " + refusals, e);
        }
        return accepted.get();
    }

    /** The placement of the unit of {@code kind} named {@code name}, as {@code node} sees it once it has one. */
    protected static ShardPlacement placement(FelixServer node, ShardKey.Kind kind, String name) {
        await().atMost(Duration.ofSeconds(10)).until(() -> node.cluster().placements().stream()
                .anyMatch(p -> p.key().kind() == kind && p.name().equals(name)));
        return node.cluster().placements().stream().filter(p -> p.key().kind() == kind && p.name().equals(name))
                .findFirst().orElseThrow();
    }
}
