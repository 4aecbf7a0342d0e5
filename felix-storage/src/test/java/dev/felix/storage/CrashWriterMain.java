package dev.felix.storage;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Child process for {@link CrashTest}: opens a log with {@code on_commit}, appends batches from several
 * threads and writes one line per acknowledged (flushed) batch to its acknowledgement file, until it is killed. In "big" rounds thread 0
 * instead appends 2 MiB records without waiting or acknowledging, so kills often land inside a write.
 *
 * <pre>
 * OPEN &lt;tail&gt;
 * ACK &lt;first&gt; &lt;last&gt; &lt;round&gt; &lt;thread&gt; &lt;seq&gt; END
 * </pre>
 */
public final class CrashWriterMain {
    /** Segment size small enough that a run rolls several times (rolls get killed too). */
    static final long SEGMENT_BYTES = 16 * 1024;

    private CrashWriterMain() {
    }

    /** Size of the large records thread 0 writes in "big" rounds. */
    static final int BIG_PAYLOAD = 2 * 1024 * 1024;

    /**
     * Rounds in which thread 0 writes {@link #BIG_PAYLOAD}-byte records: the kernel stops a large write at a
     * page boundary when SIGKILL arrives, so a kill can leave a genuinely torn record at the tail.
     */
    static boolean bigRound(final int round) {
        return round % 4 == 3;
    }

    /** The payload of record {@code i} of batch {@code seq} of {@code thread} in {@code round}. */
    static byte[] payload(final int round, final int thread, final long seq, final int i) {
        final String id = "r" + round + "-t" + thread + "-s" + seq + "-i" + i + "|";
        final int length = id.length() + (bigRound(round) && thread == 0 ? BIG_PAYLOAD
            : (int) ((seq * 37 + i * 101 + thread * 13) % 400));
        final byte[] out = new byte[length];
        final byte[] head = id.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(head, 0, out, 0, head.length);
        for (int k = head.length; k < length; k++) {
            out[k] = (byte) ('a' + (k + seq) % 26);
        }
        return out;
    }

    static int batchSize(final int round, final int thread, final long seq) {
        return bigRound(round) && thread == 0 ? 1 : 1 + (int) (seq % 5);
    }

    static LogConfig config() {
        return LogConfig.builder().segmentBytes(SEGMENT_BYTES).indexSpacingBytes(1024)
            .fsyncPolicy(FsyncPolicy.onCommit()).build();
    }

    public static void main(final String[] args) throws Exception {
        final Path dir = Path.of(args[0]);
        final int round = Integer.parseInt(args[1]);
        final int threads = Integer.parseInt(args[2]);
        // The lines go to a file (args[3]), one write(2) per line: the JDK may drop the last bytes of a killed
        // child's stdout pipe, which would hide acknowledgements from the test.
        final PrintStream out = new PrintStream(new java.io.FileOutputStream(args[3], true), true,
            StandardCharsets.US_ASCII);
        final StorageRuntime runtime = StorageRuntime.create();
        final SegmentedLog log = SegmentedLog.open(dir, config(), runtime);
        synchronized (out) {
            out.println("OPEN " + log.tailOffset());
        }
        final List<Thread> writers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            final int thread = t;
            writers.add(new Thread(() -> {
                for (long seq = 0; ; seq++) {
                    final List<byte[]> batch = new ArrayList<>();
                    for (int i = 0; i < batchSize(round, thread, seq); i++) {
                        batch.add(payload(round, thread, seq, i));
                    }
                    final AppendResult r = log.append(batch, seq);
                    if (bigRound(round) && thread == 0) {
                        continue; // bulk writer: never waits, never acknowledges; it is there to be killed mid-write
                    }
                    log.awaitDurable(r.nextOffset());
                    synchronized (out) {
                        out.println("ACK " + r.firstOffset() + " " + r.lastOffset() + " " + round + " " + thread + " "
                            + seq + " END");
                    }
                }
            }, "writer-" + t));
        }
        writers.forEach(Thread::start);
        for (final Thread w : writers) {
            w.join();
        }
    }
}
