package dev.felix.storage;

import static dev.felix.storage.TestSupport.payload;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.felix.testing.ManualClock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Retention by bytes and by age (injected clock): whole sealed head segments only, never the active one. */
class RetentionTest {
    @TempDir
    Path tmp;

    private final ManualClock clock = new ManualClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final StorageRuntime runtime = StorageRuntime.builder().clock(clock).build();

    @AfterEach
    void closeRuntime() {
        runtime.close();
    }

    private static LogConfig.Builder base() {
        return LogConfig.builder().segmentBytes(1024).fsyncPolicy(FsyncPolicy.none());
    }

    /** 40 records of 100 B (128 B on disk): 7 per segment, 6 segments. */
    private void fill(final SegmentedLog log) {
        for (int i = 0; i < 40; i++) {
            log.append(payload(i, 100), clock.micros());
        }
    }

    @Test
    void byBytes_dropsHeadSegmentsUntilUnderTheBound_andReadsBelowGetTrimmed() {
        final Path dir = tmp.resolve("log");
        try (SegmentedLog log = SegmentedLog.open(dir, base().retentionBytes(3000).build(), runtime)) {
            fill(log);
            final long before = log.sizeBytes();
            final int segments = log.segmentCount();
            final RetentionResult r = log.enforceRetention();
            assertThat(r.segmentsDeleted()).isPositive();
            assertThat(log.sizeBytes()).isLessThanOrEqualTo(3000).isEqualTo(before - r.bytesReclaimed());
            assertThat(log.segmentCount()).isEqualTo(segments - r.segmentsDeleted());
            assertThat(TestSupport.segmentFiles(dir)).hasSize(log.segmentCount());
            assertThat(r.baseOffset()).isEqualTo(log.baseOffset()).isPositive();

            final long oldest = log.baseOffset();
            assertThat(log.read(0, 10, 10_000)).isEqualTo(new ReadResult.Trimmed(0, oldest));
            assertThatThrownBy(() -> log.read(oldest - 1, 10, 10_000).recordsOrThrow())
                .isInstanceOfSatisfying(StorageException.class, e -> {
                    assertThat(e.code()).isEqualTo(StorageErrorCode.TRIMMED);
                    assertThat(e.oldest()).hasValue(oldest);
                    assertThat(e.requested()).hasValue(oldest - 1);
                });
            final List<LogRecord> rest = TestSupport.readAll(log);
            assertThat(rest.get(0).offset()).isEqualTo(oldest);
            assertThat(rest).hasSize((int) (40 - oldest));
            assertThat(runtime.metrics().retentionSegmentsDeleted()).isEqualTo(r.segmentsDeleted());
            assertThat(runtime.metrics().retentionBytesReclaimed()).isEqualTo(r.bytesReclaimed());
            assertThat(log.enforceRetention().segmentsDeleted()).isZero(); // idempotent
        }
        try (SegmentedLog log = SegmentedLog.open(dir, base().build(), runtime)) {
            assertThat(log.baseOffset()).isPositive(); // the new base survives a restart
            assertThat(log.tailOffset()).isEqualTo(40);
        }
    }

    @Test
    void tinyBound_deletesEverySealedSegment_butNeverTheActiveOne() {
        try (SegmentedLog log = SegmentedLog.open(tmp.resolve("log"), base().retentionBytes(1).build(), runtime)) {
            fill(log);
            log.enforceRetention();
            assertThat(log.segmentCount()).isEqualTo(1);
            assertThat(log.baseOffset()).isEqualTo(35);
            assertThat(TestSupport.readAll(log)).extracting(LogRecord::offset).containsExactly(35L, 36L, 37L, 38L, 39L);
        }
    }

    @Test
    void byAge_usesRecordTimestampsAndTheRuntimeClock() {
        try (SegmentedLog log = SegmentedLog.open(tmp.resolve("log"), base().retentionAge(Duration.ofHours(1)).build(), runtime)) {
            for (int i = 0; i < 14; i++) { // two full segments, old
                log.append(payload(i, 100), clock.micros());
            }
            clock.advance(Duration.ofMinutes(50));
            for (int i = 14; i < 40; i++) { // newer
                log.append(payload(i, 100), clock.micros());
            }
            assertThat(log.enforceRetention().segmentsDeleted()).isZero();
            clock.advance(Duration.ofMinutes(11)); // first two segments now 61 minutes old, the rest 11
            final RetentionResult r = log.enforceRetention();
            assertThat(r.segmentsDeleted()).isEqualTo(2);
            assertThat(log.baseOffset()).isEqualTo(14);
            clock.advance(Duration.ofDays(1)); // everything is old: all sealed go, the active stays
            log.enforceRetention();
            assertThat(log.segmentCount()).isEqualTo(1);
            assertThat(log.tailOffset()).isEqualTo(40);
        }
    }

    @Test
    void runsOnTheRuntimeTimerWhenConfigured() {
        final LogConfig cfg = base().retentionBytes(2000).retentionCheckInterval(Duration.ofMillis(20)).build();
        try (SegmentedLog log = SegmentedLog.open(tmp.resolve("log"), cfg, runtime)) {
            fill(log);
            await().atMost(Duration.ofSeconds(10)).until(() -> log.sizeBytes() <= 2000);
            assertThat(log.baseOffset()).isPositive();
        }
    }

    @Test
    void offByDefault() throws Exception {
        try (SegmentedLog log = SegmentedLog.open(tmp.resolve("log"), base().build(), runtime)) {
            fill(log);
            assertThat(log.enforceRetention()).isEqualTo(new RetentionResult(0, 0, 0));
            assertThat(runtime.scheduledTaskCount()).isZero();
        }
    }

    @Test
    void concurrentReaders_seeRecordsOrTrimmed_neverErrors() throws Exception {
        final Path dir = tmp.resolve("log");
        try (SegmentedLog log = SegmentedLog.open(dir, base().retentionBytes(1500).build(), runtime)) {
            final java.util.concurrent.atomic.AtomicReference<Throwable> error = new java.util.concurrent.atomic.AtomicReference<>();
            final java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
            final Thread reader = new Thread(() -> {
                try {
                    while (!stop.get()) {
                        final ReadResult r = log.read(0, 50, 100_000);
                        if (r instanceof ReadResult.Records) {
                            final List<LogRecord> recs = ((ReadResult.Records) r).records();
                            for (int i = 0; i < recs.size(); i++) {
                                assertThat(recs.get(i).offset()).isEqualTo(i);
                            }
                        }
                        final long base = log.baseOffset();
                        log.read(base, 50, 100_000);
                    }
                } catch (final Throwable t) {
                    error.set(t);
                }
            });
            reader.start();
            for (int i = 0; i < 400; i++) {
                log.append(payload(i, 100), clock.micros());
                if (i % 10 == 0) {
                    log.enforceRetention();
                }
            }
            stop.set(true);
            reader.join();
            assertThat(error.get()).isNull();
            assertThat(Files.list(dir).count()).isLessThan(30);
        }
    }
}
