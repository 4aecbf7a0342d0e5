package dev.felix.server.cluster;

import static org.awaitility.Awaitility.await;

import dev.felix.cluster.ShardKey;
import dev.felix.cluster.ShardPlacement;
import dev.felix.server.FelixServer;
import java.nio.file.Path;
import java.time.Duration;
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

    /** The placement of the unit of {@code kind} named {@code name}, as {@code node} sees it once it has one. */
    protected static ShardPlacement placement(FelixServer node, ShardKey.Kind kind, String name) {
        await().atMost(Duration.ofSeconds(10)).until(() -> node.cluster().placements().stream()
                .anyMatch(p -> p.key().kind() == kind && p.name().equals(name)));
        return node.cluster().placements().stream().filter(p -> p.key().kind() == kind && p.name().equals(name))
                .findFirst().orElseThrow();
    }
}
