package dev.felix.storage;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

/**
 * Child process for {@link ReplicaCrashTest}: works a log as a follower does, from one thread, writing a line
 * to its operation file before every operation starts and again once it is durable, until it is killed. (A
 * file, not stdout: the JDK may drop the last bytes of a killed child's stdout pipe, see the test.)
 *
 * <pre>
 * OPEN &lt;base&gt; &lt;tail&gt; &lt;lastEpoch&gt;
 * APPENDING &lt;seq&gt; &lt;first&gt; &lt;n&gt;      appendAt(first, n payloads, per-record timestamps) ...
 * ACK &lt;seq&gt; &lt;first&gt; &lt;last&gt; END     ... and awaitDurable returned
 * EPOCHING &lt;epoch&gt;                   beginEpoch(epoch) ...
 * EPOCH &lt;epoch&gt; &lt;start&gt; END         ... returned (forced)
 * RESETTING &lt;offset&gt;                 resetTo(offset) ...
 * RESET &lt;offset&gt; END                 ... returned (forced)
 * </pre>
 */
public final class ReplicaCrashWriterMain {
    /** Small segments: resets delete several, appends roll often. */
    static final long SEGMENT_BYTES = 4 * 1024;

    private ReplicaCrashWriterMain() {
    }

    static LogConfig config() {
        return LogConfig.builder().segmentBytes(SEGMENT_BYTES).indexSpacingBytes(512).fsyncPolicy(FsyncPolicy.onCommit())
            .build();
    }

    /** Payload of record {@code i} of append {@code seq} in {@code round}. */
    static byte[] payload(final int round, final long seq, final int i) {
        final String id = "r" + round + "-s" + seq + "-i" + i + "|";
        final int length = id.length() + (int) ((seq * 31 + i * 17) % 300);
        final byte[] out = new byte[length];
        final byte[] head = id.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(head, 0, out, 0, head.length);
        for (int k = head.length; k < length; k++) {
            out[k] = (byte) ('A' + (k * 7 + seq) % 26);
        }
        return out;
    }

    /** Timestamp of that record: per record, not per batch. */
    static long timestamp(final int round, final long seq, final int i) {
        return round * 1_000_000_000L + seq * 100 + i;
    }

    static int batchSize(final long seq) {
        return 1 + (int) (seq % 4);
    }

    public static void main(final String[] args) throws Exception {
        final Path dir = Path.of(args[0]);
        final int round = Integer.parseInt(args[1]);
        // Each println is one write(2) of a whole line, done before the next operation starts: a kill leaves
        // every line written so far in the page cache.
        final PrintStream out = new PrintStream(new java.io.FileOutputStream(args[2], true), true,
            StandardCharsets.US_ASCII);
        final StorageRuntime runtime = StorageRuntime.create();
        final SegmentedLog log = SegmentedLog.open(dir, config(), runtime);
        out.println("OPEN " + log.baseOffset() + " " + log.tailOffset() + " " + log.lastEpoch());
        final Random rnd = new Random(round * 7919L);
        long epoch = Math.max(0, log.lastEpoch());
        for (long seq = 0; ; seq++) {
            final int op = rnd.nextInt(100);
            if (op < 10) {
                epoch += 1 + rnd.nextInt(3);
                out.println("EPOCHING " + epoch);
                log.beginEpoch(epoch);
                out.println("EPOCH " + epoch + " " + log.epochHistory().get(log.epochHistory().size() - 1).startOffset() + " END");
            } else if (op < 14) {
                final long target = log.tailOffset() + rnd.nextInt(40);
                out.println("RESETTING " + target);
                log.resetTo(target);
                out.println("RESET " + target + " END");
            } else {
                final long first = log.tailOffset();
                final int n = batchSize(seq);
                final List<byte[]> payloads = new ArrayList<>(n);
                final long[] ts = new long[n];
                for (int i = 0; i < n; i++) {
                    payloads.add(payload(round, seq, i));
                    ts[i] = timestamp(round, seq, i);
                }
                out.println("APPENDING " + seq + " " + first + " " + n);
                final AppendResult r = log.appendAt(first, payloads, ts);
                log.awaitDurable(r.nextOffset());
                out.println("ACK " + seq + " " + r.firstOffset() + " " + r.lastOffset() + " END");
            }
        }
    }
}
