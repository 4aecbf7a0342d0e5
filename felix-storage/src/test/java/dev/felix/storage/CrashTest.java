package dev.felix.storage;

import static org.assertj.core.api.Assertions.assertThat;

import static org.awaitility.Awaitility.await;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 mid-write, many times: a child process appends with {@code on_commit} from several threads and
 * prints every acknowledged batch; the test SIGKILLs it at random moments (during startup and recovery too),
 * reopens the log and checks that every acknowledged record is at its offset with its content, offsets are
 * contiguous and nothing is duplicated. The child reports through a file: the JDK may drop the last bytes of a
 * killed child's stdout pipe (its reaper closes the pipe under the reading thread), hiding acknowledgements.
 */
class CrashTest {
    private static final int ROUNDS = 24;
    private static final int THREADS = 4;
    private static final long SEED = 20260601L;

    @TempDir
    Path tmp;

    /** Acknowledged record: where it must be and what it must hold. */
    private record Expected(int round, int thread, long seq, int index) {
        byte[] payload() {
            return CrashWriterMain.payload(round, thread, seq, index);
        }
    }

    @Test
    @Timeout(value = 100, unit = TimeUnit.SECONDS)
    void everyAcknowledgedRecordSurvivesSigkill() throws Exception {
        final Path dir = tmp.resolve("log");
        final Path stderr = tmp.resolve("child-stderr.log");
        final Map<Long, Expected> acked = new HashMap<>();
        final Random rnd = new Random(SEED);
        int roundsWithAcks = 0;
        long totalAcked = 0;
        int repairs = 0;
        try (StorageRuntime runtime = StorageRuntime.create()) {
            for (int round = 0; round < ROUNDS; round++) {
                final Path acks = tmp.resolve("acks-" + round + ".log");
                final Process child = start(dir, round, acks, stderr);
                // Kill at a random moment: sometimes before the child even finished opening (recovery).
                final boolean early = round % 6 == 5;
                if (early) {
                    Thread.sleep(rnd.nextInt(400));
                } else {
                    await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(acks) && Files.size(acks) > 0);
                    final String open = Files.readAllLines(acks, StandardCharsets.US_ASCII).get(0);
                    assertThat(open).as("child opened the log (see %s)", stderr).startsWith("OPEN ");
                    final long openedTail = Long.parseLong(open.substring(5).trim());
                    assertThat(openedTail).as("acknowledged records survive in the child's recovery")
                        .isGreaterThanOrEqualTo(acked.size());
                    Thread.sleep(50 + rnd.nextInt(350));
                }
                child.destroyForcibly();
                assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
                final List<String> lines = Files.exists(acks) ? Files.readAllLines(acks, StandardCharsets.US_ASCII) : List.of();
                int acksThisRound = 0;
                for (final String line : lines) {
                    final String[] t = line.trim().split(" ");
                    if (t.length != 7 || !t[0].equals("ACK") || !t[6].equals("END")) {
                        continue; // OPEN, or a line cut by the kill
                    }
                    final long first = Long.parseLong(t[1]);
                    final long last = Long.parseLong(t[2]);
                    final int r = Integer.parseInt(t[3]);
                    final int thread = Integer.parseInt(t[4]);
                    final long seq = Long.parseLong(t[5]);
                    assertThat(r).isEqualTo(round);
                    assertThat(last - first + 1).isEqualTo(CrashWriterMain.batchSize(r, thread, seq));
                    for (long o = first; o <= last; o++) {
                        assertThat(acked.put(o, new Expected(r, thread, seq, (int) (o - first))))
                            .as("offset %d acknowledged twice", o).isNull();
                    }
                    acksThisRound++;
                }
                totalAcked += acksThisRound;
                if (acksThisRound > 0) {
                    roundsWithAcks++;
                }
                repairs += verify(dir, runtime, acked) ? 1 : 0;
            }
        }
        System.err.printf("CrashTest: %d rounds, %d acknowledged batches, %d acknowledged records, %d torn tails repaired%n",
            ROUNDS, totalAcked, acked.size(), repairs);
        assertThat(roundsWithAcks).as("rounds that acknowledged something").isGreaterThanOrEqualTo(ROUNDS / 2);
        assertThat(totalAcked).isPositive();
    }

    /** Reopen (recovery) and check every acknowledged record, contiguity and uniqueness; true if a tail was repaired. */
    private static boolean verify(final Path dir, final StorageRuntime runtime, final Map<Long, Expected> acked) {
        if (!Files.exists(dir)) {
            assertThat(acked).isEmpty();
            return false;
        }
        try (SegmentedLog log = SegmentedLog.open(dir, CrashWriterMain.config(), runtime)) {
            assertThat(log.baseOffset()).isZero();
            final List<LogRecord> all = TestSupport.readAll(log);
            assertThat((long) all.size()).isEqualTo(log.tailOffset());
            final Set<String> ids = new HashSet<>();
            for (int i = 0; i < all.size(); i++) {
                final LogRecord r = all.get(i);
                assertThat(r.offset()).as("contiguous").isEqualTo(i);
                final String s = new String(r.payload(), 0, Math.min(64, r.payload().length), StandardCharsets.US_ASCII);
                assertThat(ids.add(s.substring(0, s.indexOf('|')))).as("duplicate record %s", s).isTrue();
            }
            for (final Map.Entry<Long, Expected> e : acked.entrySet()) {
                assertThat(e.getKey()).as("acknowledged offset exists").isLessThan(all.size());
                assertThat(all.get(e.getKey().intValue()).payload()).as("content of acknowledged offset %d", e.getKey())
                    .isEqualTo(e.getValue().payload());
            }
            return log.recoveryReport().tailRepair().isPresent();
        }
    }

    private static Process start(final Path dir, final int round, final Path acks, final Path stderr) throws IOException {
        final String java = ProcessHandle.current().info().command().orElse(
            System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
        final ProcessBuilder pb = new ProcessBuilder(java, "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
            "-cp", System.getProperty("java.class.path"), CrashWriterMain.class.getName(), dir.toString(),
            Integer.toString(round), Integer.toString(THREADS), acks.toString());
        pb.redirectOutput(ProcessBuilder.Redirect.DISCARD);
        pb.redirectError(ProcessBuilder.Redirect.appendTo(stderr.toFile()));
        return pb.start();
    }
}
