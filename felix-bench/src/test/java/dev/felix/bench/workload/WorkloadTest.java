package dev.felix.bench.workload;

import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.bench.common.Progress;
import dev.felix.bench.common.Stamp;
import dev.felix.bench.system.FelixTarget;
import dev.felix.bench.system.Target;
import dev.felix.bench.system.TargetFactory;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The harness counts and checks what it times. No speed is asserted anywhere. */
class WorkloadTest {

    private static final PrintStream QUIET = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);

    /** 1 MiB per subscriber, batch 16, 1 s stall limit. */
    private static ThroughputWorkload tinyThroughput() {
        return new ThroughputWorkload(new ThroughputWorkload.Options(16, 1, 5, 64 << 10, 1, 0));
    }

    private static Progress progress() {
        return Progress.single(QUIET, "test", 100);
    }

    @Test
    void throughput_cleanRun_checksEveryDelivery_withAndWithoutBackpressure() throws Exception {
        for (boolean backpressure : List.of(true, false)) {
            ThroughputWorkload w = tinyThroughput();
            Cell cell = new Cell(100, 3);
            RunResult r = w.run(new FakeTarget(-1, backpressure), cell, "t", progress());
            assertThat(r.ok()).as(r.sequence()).isTrue();
            long perSub = w.messagesFor(cell);
            assertThat(r.delivered()).isEqualTo(perSub * 3);
            assertThat(r.values()).containsKeys("msgs_per_s", "mb_per_s", "per_sub_mb_per_s", "cpu_s_per_m");
            assertThat(r.detail()).containsEntry("messages_per_subscriber", perSub);
            assertThat((Long) r.detail().get("udp_receive_buffer_drops")).as("Linux shows the count").isNotNegative();
        }
    }

    @Test
    void throughput_runSizedAtTheValidityThreshold_isNotShortOfIt() {
        // 128 MiB is not a whole number of 4,112-byte messages: rounding down left runs 2 KiB short and flagged.
        ThroughputWorkload w = new ThroughputWorkload(new ThroughputWorkload.Options(64, 128, 30, 8 << 20, 30, 0));
        for (int payload : List.of(0, 256, 1024, 4096)) {
            long bytes = w.messagesFor(new Cell(payload, 1)) * (Stamp.BYTES + payload);
            assertThat(bytes).as("payload %d", payload).isGreaterThanOrEqualTo(ThroughputWorkload.VALID_BYTES_PER_SUBSCRIBER);
        }
    }

    @Test
    void throughput_oneMissingMessage_failsTheRun() throws Exception {
        RunResult lostInTheMiddle = tinyThroughput().run(new FakeTarget(500, true), new Cell(0, 2), "t", progress());
        assertThat(lostInTheMiddle.ok()).isFalse();
        assertThat(lostInTheMiddle.sequenceErrors()).isEqualTo(1);
        assertThat(lostInTheMiddle.sequence()).contains("1 missing");

        // The very last message lost: the subscriber never reaches the end, the run stalls and fails.
        ThroughputWorkload w = tinyThroughput();
        Cell cell = new Cell(0, 1);
        RunResult lostLast = w.run(new FakeTarget(w.messagesFor(cell) - 1, true), cell, "t", progress());
        assertThat(lostLast.ok()).isFalse();
        assertThat(lostLast.failure()).contains("stalled");
    }

    @Test
    void latency_recordsEverySubscriber_andCatchesALoss() throws Exception {
        LatencyWorkload w = new LatencyWorkload(new LatencyWorkload.Options(10, 200, 1), 0);
        RunResult ok = w.run(new FakeTarget(-1, true), new Cell(8, 4), "t", progress());
        assertThat(ok.ok()).isTrue();
        assertThat(ok.detail()).containsEntry("latency_samples", 800L); // 200 measured x 4 subscribers
        assertThat(ok.values().get("p50_us")).isNotNaN();
        RunResult lost = w.run(new FakeTarget(50, true), new Cell(8, 4), "t", progress());
        assertThat(lost.ok()).isFalse();
    }

    @Test
    void suite_excludesFailedRunsFromMedians_andComparesWithFelix() {
        Suite.Outcome o = Suite.run(tinyThroughput(),
                List.of(FakeTarget.factory("felix", -1, true), FakeTarget.factory("lossy", 100, false),
                        FakeTarget.factory("lossy-tls", -1, false)),
                List.of(new Cell(16, 2)), 2, QUIET);
        CellSummary felix = o.find("felix", new Cell(16, 2));
        CellSummary lossy = o.find("lossy", new Cell(16, 2));
        assertThat(felix.ok()).isTrue();
        assertThat(felix.runs()).hasSize(2);
        assertThat(lossy.ok()).isFalse();
        assertThat(lossy.passed()).isEmpty();
        assertThat(lossy.median("msgs_per_s")).isNaN();
        assertThat(lossy.sequence()).contains("2/2 runs FAILED");
        assertThat(o.ok()).isFalse();
        // Ratios against a failed cell are not reported as numbers.
        Map<String, Object> row = SuiteReport.ratios(o).get(0);
        assertThat(row).containsEntry("peer", "lossy");
        assertThat(((Map<?, ?>) row.get("ratios")).get("msgs_per_s")).isEqualTo(Double.NaN);
        assertThat(SuiteReport.tlsTax(o)).hasSize(1);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        SuiteReport.printMedians(o, 2, new PrintStream(out, true, StandardCharsets.UTF_8));
        assertThat(out.toString(StandardCharsets.UTF_8)).contains("FAILED").contains("ok (");
    }

    @Test
    void suite_warmsTheFirstCellUpForItsSeconds_thenEveryLaterCellOnce() {
        List<Cell> cells = List.of(new Cell(16, 1), new Cell(64, 2));
        List<Long> starts = new java.util.concurrent.CopyOnWriteArrayList<>();
        TargetFactory counted = counting(FakeTarget.factory("felix", -1, true), starts);

        // No warm-up time: one warm-up run per cell, then the measured run.
        Suite.Outcome once = Suite.run(new ThroughputWorkload(new ThroughputWorkload.Options(16, 1, 5, 64 << 10, 1, 0)),
                List.of(counted), cells, 1, QUIET);
        assertThat(once.ok()).isTrue();
        assertThat(starts).hasSize(4);

        // One second: the first cell's warm-up runs repeat until it has passed, and only then is a run measured.
        starts.clear();
        long begun = System.nanoTime();
        Suite.Outcome warmed = Suite.run(new ThroughputWorkload(new ThroughputWorkload.Options(16, 1, 5, 64 << 10, 1, 1)),
                List.of(counted), cells, 1, QUIET);
        assertThat(warmed.ok()).isTrue();
        int warmUps = starts.size() - 3; // the rest: the first cell's measured run, the second cell's warm-up and run
        assertThat(warmUps).isGreaterThanOrEqualTo(1);
        long firstMeasured = starts.get(warmUps);
        assertThat(firstMeasured - begun).isGreaterThanOrEqualTo(java.util.concurrent.TimeUnit.SECONDS.toNanos(1));
        assertThat(warmed.find("felix", cells.get(0)).runs()).hasSize(1); // warm-ups are not measured runs
    }

    /** {@code factory}, noting when each system is started (each run starts one) in {@code starts}. */
    private static TargetFactory counting(TargetFactory factory, List<Long> starts) {
        return new TargetFactory() {
            @Override
            public String name() {
                return factory.name();
            }

            @Override
            public String unavailable() {
                return null;
            }

            @Override
            public Target start() throws Exception {
                starts.add(System.nanoTime());
                return factory.start();
            }
        };
    }

    @Test
    void smoke_realFelixBroker_tinyThroughputAndLatency() throws Exception {
        try (Target felix = FelixTarget.factory(Map.of()).start()) {
            RunResult r = tinyThroughput().run(felix, new Cell(64, 2), "smoke-t", progress());
            assertThat(r.ok()).as(r.failure() + " " + r.sequence()).isTrue();
            assertThat(r.values().get("broker_cpu_s_per_m")).isNotNaN();
            // Allocation per delivery: the whole JVM's threads, of which the in-process broker's are a part.
            assertThat(r.values().get("alloc_b_per_delivery")).isPositive();
            assertThat(r.values().get("broker_alloc_b_per_delivery")).isPositive()
                    .isLessThanOrEqualTo(r.values().get("alloc_b_per_delivery"));
        }
        try (Target felix = FelixTarget.factory(Map.of()).start()) {
            RunResult r = new LatencyWorkload(new LatencyWorkload.Options(20, 100, 10), 0)
                    .run(felix, new Cell(0, 2), "smoke-l", progress());
            assertThat(r.ok()).as(r.failure() + " " + r.sequence()).isTrue();
            assertThat(r.delivered()).isEqualTo(240);
        }
    }
}
