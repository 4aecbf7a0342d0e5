package dev.felix.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.demos.cluster.ClusterConsistencyDemo;
import dev.felix.demos.cluster.ClusterFailoverDemo;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The two cluster demos, each on three real {@code felix server} processes that it freezes, kills and
 * restarts: every check they make holds, and they say so on their RESULT line.
 */
@Timeout(300)
class ClusterDemosTest {

    @TempDir
    Path dir;

    private static String run(java.util.function.BiFunction<PrintStream, PrintStream, Integer> demo, int[] exit) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
                PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            exit[0] = demo.apply(o, e);
        }
        return out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void clusterFailover_aQuorumRecordSurvivesItsLeader_andARefusedOneIsTruncated() {
        int[] exit = new int[1];
        String output = run((o, e) -> ClusterFailoverDemo.run(new String[] {"--no-tui", "--dir",
                dir.resolve("failover").toString()}, o, e), exit);
        System.out.println(output);
        assertThat(output).contains("publish failed: the batch is durable here but did not reach a majority within 5s")
                .contains("RESULT: as promised").doesNotContain("FAIL");
        assertThat(exit[0]).isZero();
    }

    @Test
    void clusterConsistency_quorumRefusesInTime_leaderWaitsForItsLeaderAndServesTheRecordBack() {
        int[] exit = new int[1];
        String output = run((o, e) -> ClusterConsistencyDemo.run(new String[] {"--no-tui", "--pace", "5", "--dir",
                dir.resolve("consistency").toString()}, o, e), exit);
        System.out.println(output);
        assertThat(output).contains("quorum: publish failed: the batch is durable here but did not reach a majority"
                        + " within 5s")
                .contains("the leader is gone and no replica holding this shard's log can take over")
                .contains("RESULT: as promised").doesNotContain("FAIL");
        assertThat(exit[0]).isZero();
    }
}
