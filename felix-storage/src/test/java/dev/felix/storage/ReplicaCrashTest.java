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
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * kill -9 of a follower-style writer at random moments (startup and recovery included): it appends with
 * {@code appendAt} (per-record timestamps), begins epochs and resets the log, each acknowledged only once
 * durable. After every kill the log is reopened and checked against a model of what was acknowledged: every
 * acknowledged record at its offset with its payload and timestamp, every acknowledged epoch entry (and no
 * other, except the one whose recording was under way), the base an acknowledged reset set, and an interrupted
 * reset left either the old log or the new empty one. At the end {@code verify} finds nothing: crashed writer
 * sessions are not mistaken for concurrent ones.
 *
 * <p>The child reports through a file, not its stdout: when a child is killed, the JDK's process reaper drains
 * and closes the stdout pipe under the reading thread, which can then lose the last lines ("Stream closed").
 */
class ReplicaCrashTest {
    private static final int ROUNDS = 20;
    private static final long SEED = 20261202L;

    @TempDir
    Path tmp;

    /** What was acknowledged so far. */
    private static final class Model {
        final TreeMap<Long, LogRecord> records = new TreeMap<>();
        final List<EpochEntry> epochs = new ArrayList<>();
        long base;
        long tail;

        long epochOf(final long offset) {
            long e = -1;
            for (final EpochEntry x : epochs) {
                if (x.startOffset() <= offset) {
                    e = x.epoch();
                }
            }
            return e;
        }
    }

    /** The child's last lines of the current round, for failure messages. */
    private String lastLines = "";
    private int ackedAppends;
    private int ackedEpochs;
    private int ackedResets;
    private int interruptedResetsSeenNew;
    private int interruptedResetsSeenOld;
    private int interruptedEpochs;

    @Test
    @Timeout(value = 150, unit = TimeUnit.SECONDS)
    void everyAcknowledgedRecordEpochAndResetSurvivesSigkill() throws Exception {
        final Path dir = tmp.resolve("log");
        final Path stderr = tmp.resolve("child-stderr.log");
        final Model model = new Model();
        final Random rnd = new Random(SEED);
        try (StorageRuntime runtime = StorageRuntime.create()) {
            for (int round = 0; round < ROUNDS; round++) {
                final Path ops = tmp.resolve("ops-" + round + ".log");
                final Process child = start(dir, round, ops, stderr);
                if (round % 5 == 4) {
                    Thread.sleep(rnd.nextInt(500)); // often during JVM start, sometimes during recovery
                } else {
                    await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(ops) && Files.size(ops) > 0);
                    Thread.sleep(80 + rnd.nextInt(400));
                }
                child.destroyForcibly();
                assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
                final List<String> seen = Files.exists(ops) ? Files.readAllLines(ops, StandardCharsets.US_ASCII) : List.of();
                if (round % 5 != 4) {
                    assertThat(seen).as("child opened the log (see %s)", stderr).isNotEmpty();
                    assertThat(seen.get(0)).startsWith("OPEN ");
                }
                final String[] pending = replay(seen, round, model);
                lastLines = String.join(" | ", seen.subList(Math.max(0, seen.size() - 8), seen.size()));
                check(dir, runtime, model, pending, round);
            }
        }
        final LogTools.Verification v = LogTools.verify(dir);
        assertThat(v.problems()).as(v.render()).isEmpty();
        System.err.printf("ReplicaCrashTest: %d rounds; acknowledged %d appends (%d records), %d epochs, %d resets; "
                + "kills inside beginEpoch %d, inside resetTo %d (new log found %d, old log %d)%n", ROUNDS, ackedAppends,
            model.records.size(), ackedEpochs, ackedResets, interruptedEpochs,
            interruptedResetsSeenNew + interruptedResetsSeenOld, interruptedResetsSeenNew, interruptedResetsSeenOld);
        assertThat(ackedAppends).isPositive();
        assertThat(ackedEpochs).isPositive();
        assertThat(ackedResets).isPositive();
    }

    /** Applies the acknowledged operations to the model; returns the operation under way at the kill, or null. */
    private String[] replay(final List<String> lines, final int round, final Model model) {
        String[] pending = null;
        for (final String line : lines) {
            final String[] t = line.trim().split(" ");
            switch (t[0]) {
                case "OPEN":
                    assertThat(Long.parseLong(t[1])).as("base at open").isEqualTo(model.base);
                    assertThat(Long.parseLong(t[2])).as("tail at open").isEqualTo(model.tail);
                    assertThat(Long.parseLong(t[3])).as("last epoch at open")
                        .isEqualTo(model.epochs.isEmpty() ? -1 : model.epochs.get(model.epochs.size() - 1).epoch());
                    break;
                case "APPENDING":
                case "EPOCHING":
                case "RESETTING":
                    pending = t;
                    break;
                case "ACK":
                    if (t.length != 5 || !t[4].equals("END")) {
                        break; // cut by the kill: not acknowledged
                    }
                    final long seq = Long.parseLong(t[1]);
                    final long first = Long.parseLong(t[2]);
                    final long last = Long.parseLong(t[3]);
                    assertThat(first).isEqualTo(model.tail);
                    for (long o = first; o <= last; o++) {
                        final int i = (int) (o - first);
                        model.records.put(o, new LogRecord(o, ReplicaCrashWriterMain.timestamp(round, seq, i),
                            ReplicaCrashWriterMain.payload(round, seq, i)));
                    }
                    model.tail = last + 1;
                    ackedAppends++;
                    pending = null;
                    break;
                case "EPOCH":
                    if (t.length != 4 || !t[3].equals("END")) {
                        break;
                    }
                    assertThat(Long.parseLong(t[2])).as("an epoch starts at the tail").isEqualTo(model.tail);
                    model.epochs.add(new EpochEntry(Long.parseLong(t[1]), Long.parseLong(t[2])));
                    ackedEpochs++;
                    pending = null;
                    break;
                case "RESET":
                    if (t.length != 3 || !t[2].equals("END")) {
                        break;
                    }
                    final long target = Long.parseLong(t[1]);
                    model.records.clear();
                    model.epochs.clear();
                    model.base = target;
                    model.tail = target;
                    ackedResets++;
                    pending = null;
                    break;
                default:
                    break; // a line cut by the kill
            }
        }
        return pending;
    }

    private void check(final Path dir, final StorageRuntime runtime, final Model model, final String[] pending,
                       final int round) {
        if (!Files.exists(dir)) {
            assertThat(model.tail).isZero();
            return;
        }
        try (SegmentedLog log = SegmentedLog.open(dir, ReplicaCrashWriterMain.config(), runtime)) {
            if (pending != null && pending[0].equals("RESETTING") && log.tailOffset() == Long.parseLong(pending[1])
                && log.baseOffset() == Long.parseLong(pending[1]) && log.epochHistory().isEmpty()) {
                // The reset reached its commit point: the new, empty log. (A reset may target the tail itself, so
                // the old log's tail can equal the target; were the old log also empty there, both readings agree.)
                interruptedResetsSeenNew++;
                model.records.clear();
                model.epochs.clear();
                model.base = log.baseOffset();
                model.tail = log.tailOffset();
                return;
            }
            if (pending != null && pending[0].equals("RESETTING")) {
                interruptedResetsSeenOld++;
            }
            assertThat(log.baseOffset()).as("round %d: base", round).isEqualTo(model.base);
            long extra = 0;
            if (pending != null && pending[0].equals("APPENDING")) {
                final long seq = Long.parseLong(pending[1]);
                assertThat(Long.parseLong(pending[2])).isEqualTo(model.tail);
                extra = log.tailOffset() - model.tail;
                assertThat(extra).as("round %d: unacknowledged records beyond the batch in flight (model tail %d; "
                        + "child's last lines: %s)", round, model.tail, lastLines)
                    .isBetween(0L, Long.parseLong(pending[3]));
                for (int i = 0; i < extra; i++) { // what survived of the batch in flight is that batch's prefix
                    final long o = model.tail + i;
                    model.records.put(o, new LogRecord(o, ReplicaCrashWriterMain.timestamp(round, seq, i),
                        ReplicaCrashWriterMain.payload(round, seq, i)));
                }
            }
            assertThat(log.tailOffset()).as("round %d: tail (child's last lines: %s)", round, lastLines)
                .isEqualTo(model.tail + extra);
            model.tail += extra;
            final List<LogRecord> all = new ArrayList<>();
            long from = log.baseOffset();
            while (from < log.tailOffset()) {
                final List<LogRecord> got = log.read(from, 1000, Long.MAX_VALUE).recordsOrThrow();
                all.addAll(got);
                from += got.size();
            }
            final Map<Long, LogRecord> found = new TreeMap<>();
            all.forEach(r -> found.put(r.offset(), r));
            assertThat(found).as("round %d: records (payloads and per-record timestamps)", round)
                .containsExactlyEntriesOf(model.records);

            final List<EpochEntry> history = log.epochHistory();
            if (pending != null && pending[0].equals("EPOCHING") && history.size() == model.epochs.size() + 1) {
                interruptedEpochs++;
                assertThat(history.get(history.size() - 1)).isEqualTo(new EpochEntry(Long.parseLong(pending[1]), model.tail));
                model.epochs.add(history.get(history.size() - 1));
            }
            assertThat(history).as("round %d: epoch history", round).isEqualTo(model.epochs);
            for (final long o : model.records.keySet()) {
                final long e = model.epochOf(o);
                assertThat(log.epochOf(o)).as("round %d: epochOf(%d)", round, o)
                    .isEqualTo(e < 0 ? java.util.OptionalLong.empty() : java.util.OptionalLong.of(e));
            }
        }
    }

    private static Process start(final Path dir, final int round, final Path ops, final Path stderr) throws IOException {
        final String java = ProcessHandle.current().info().command().orElse(
            System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
        final ProcessBuilder pb = new ProcessBuilder(java, "-Xmx128m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
            "-cp", System.getProperty("java.class.path"), ReplicaCrashWriterMain.class.getName(), dir.toString(),
            Integer.toString(round), ops.toString());
        pb.redirectOutput(ProcessBuilder.Redirect.DISCARD);
        pb.redirectError(ProcessBuilder.Redirect.appendTo(stderr.toFile()));
        return pb.start();
    }
}
