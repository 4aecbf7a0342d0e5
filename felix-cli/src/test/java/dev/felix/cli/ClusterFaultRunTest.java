package dev.felix.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.demos.cluster.ClusterFaultRun;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * The fault run on three real {@code felix server} processes with a fixed seed: while one node at a time is
 * SIGKILLed and restarted, SIGSTOPped and SIGCONTed, or cleanly restarted, a quorum and a leader stream take
 * acknowledged publishes and a quorum log cache acknowledged puts; afterwards every acknowledged record is read back
 * at its offset, no offset forked, duplicates come only from uncertain retries, both streams are served complete,
 * and every acknowledged cache put reads back from the cache's leader and from a mirror that followed it.
 */
@Timeout(300)
class ClusterFaultRunTest {

    /** Kept when the run fails: the output names it, and the nodes' logs there say what happened. */
    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path dir;

    @Test
    void everyAcknowledgedRecordSurvivesKillsFreezesAndRestarts_withoutForksOrHoles() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
                PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            exit = ClusterFaultRun.run(new String[] {"--seed", "7", "--seconds", "45", "--dir", dir.toString()}, o, e);
        }
        String output = out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8);
        System.out.println(output);
        assertThat(output).contains("RESULT: as promised").doesNotContain("FAIL");
        assertThat(exit).isZero();
        // The schedule really disturbed the cluster and the writers really wrote through it.
        Matcher faults = Pattern.compile("faults injected\\s+\\{(.*)}").matcher(output);
        assertThat(faults.find()).isTrue();
        assertThat(faults.group(1)).matches(".*\\w+=\\d+.*");
        Matcher acks = Pattern.compile("acknowledged\\s+quorum (\\d+), leader (\\d+), cache (\\d+)").matcher(output);
        assertThat(acks.find()).isTrue();
        assertThat(Long.parseLong(acks.group(1))).isPositive();
        assertThat(Long.parseLong(acks.group(2))).isPositive();
        assertThat(Long.parseLong(acks.group(3))).as("the quorum log cache took acknowledged puts").isPositive();
        Matcher changes = Pattern.compile("leader changes\\s+(\\d+)").matcher(output);
        assertThat(changes.find()).isTrue();
        assertThat(Long.parseLong(changes.group(1))).as("the faults moved some leadership").isPositive();
    }
}
