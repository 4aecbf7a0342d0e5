package dev.felix.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.demos.cluster.ClusterRelayLoadRun;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The relay load run on three real {@code felix server} processes with {@code cluster_relay_subscribe: true}: two
 * load steps (the second well above what the slowed subscribers take), subscribers spread over the nodes, most of
 * them relayed. Every step's row must balance (delivered + announced == published for every subscriber), the run
 * must exit 0, and the top step must really have lost events and announced them (gap notices or resync closes on
 * the relays), so the check is not green merely because nothing was ever lost.
 */
@Timeout(150)
class ClusterRelayLoadRunTest {

    @TempDir
    Path dir;

    @Test
    void risingLoadOnRelayedSubscribers_everyLossIsAnnounced_andEveryStepBalances() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
                PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            exit = ClusterRelayLoadRun.run(new String[] {"--seed", "7", "--steps", "2", "--step-seconds", "4",
                "--subscribers", "12", "--base-rate", "250", "--dir", dir.toString()}, o, e);
        }
        String output = out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8);
        System.out.println(output);
        assertThat(output).contains("RESULT: as promised").doesNotContain("FAIL");
        assertThat(exit).isZero();

        List<String[]> rows = new ArrayList<>();
        Matcher row = Pattern.compile("(?m)^(\\d+)\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)\\s+([\\d.]+)%"
                + "\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)"
                + "\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)\\s+(\\S.*)$").matcher(output);
        while (row.find()) {
            String[] r = new String[16];
            for (int i = 1; i <= 16; i++) {
                r[i - 1] = row.group(i);
            }
            rows.add(r);
        }
        assertThat(rows).as("one table row per step").hasSize(2);
        for (String[] r : rows) {
            assertThat(r[15]).as("step " + r[0] + " balances").isEqualTo("OK");
            assertThat(Long.parseLong(r[2])).as("step " + r[0] + " published").isPositive();
        }
        String[] top = rows.get(1);
        long gapAnnounced = Long.parseLong(top[5]);
        long resyncs = Long.parseLong(top[7]);
        long fenced = Long.parseLong(top[11]);
        long dropped = Long.parseLong(top[8]) + Long.parseLong(top[9]);
        assertThat(dropped).as("the relays lost events at the top step (queue_full or stale)").isPositive();
        assertThat(fenced).as("and fenced the subscriptions that missed them").isPositive();
        assertThat(gapAnnounced + resyncs).as("and announced the loss (gap notices, resync closes)").isPositive();
        assertThat(Double.parseDouble(top[4])).as("so not everything was delivered").isLessThan(100.0);
    }
}
