package dev.felix.bench.workload;

import dev.felix.bench.common.SequenceCheck;
import dev.felix.bench.common.Stamp;
import dev.felix.bench.system.Target;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * One subscriber's view of a run: checks the sequence of everything it receives, optionally records
 * latency (publisher's send time to receipt) for messages past the warm-up, and notes when it crossed
 * the warm-up mark and when its last message came. Called on the subscriber's delivery thread only.
 */
final class Probe implements Target.Handler {

    /** Latency histogram range: up to 60 s, 3 significant digits. */
    static final long MAX_NANOS = TimeUnit.SECONDS.toNanos(60);

    final SequenceCheck check = new SequenceCheck();
    final Histogram latency;
    private final long warmup;
    private final Runnable onWarm;
    volatile long warmNanos;
    volatile long lastNanos;

    /**
     * @param recordLatency whether to keep a latency histogram
     * @param warmup        messages before the measured part (latency is recorded from this sequence on)
     * @param onWarm        run when the last warm-up message (sequence {@code warmup - 1}) arrives, or null
     */
    Probe(boolean recordLatency, long warmup, Runnable onWarm) {
        this.latency = recordLatency ? new Histogram(MAX_NANOS, 3) : null;
        this.warmup = warmup;
        this.onWarm = onWarm;
    }

    @Override
    public void onMessage(byte[] message) {
        received(System.nanoTime(), Stamp.seq(message), Stamp.sentNanos(message));
    }

    @Override
    public void onMessage(java.nio.ByteBuffer message) {
        received(System.nanoTime(), Stamp.seq(message), Stamp.sentNanos(message));
    }

    private void received(long now, long seq, long sentNanos) {
        if (latency != null && seq >= warmup) {
            latency.recordValue(Math.min(MAX_NANOS, Math.max(0, now - sentNanos)));
        }
        if (seq == warmup - 1) {
            warmNanos = now;
            if (onWarm != null) {
                onWarm.run();
            }
        }
        lastNanos = now;
        check.accept(seq); // last: publishes the writes above to whoever reads the counts
    }

    /** Lowest delivery count over the probes (how far the slowest subscriber got). */
    static long slowest(List<Probe> probes) {
        long min = Long.MAX_VALUE;
        for (Probe p : probes) {
            min = Math.min(min, p.check.received());
        }
        return min;
    }

    /**
     * Waits until every probe has seen sequence {@code total - 1} (or beyond). Gives up, returning
     * false, when no probe made progress for {@code stallNanos}.
     */
    static boolean awaitAll(List<Probe> probes, long total, long stallNanos) {
        long lastProgress = System.nanoTime();
        long lastSum = -1;
        while (true) {
            boolean done = true;
            long sum = 0;
            for (Probe p : probes) {
                long received = p.check.received();
                sum += received;
                if (p.check.expected() < total) {
                    done = false;
                }
            }
            if (done) {
                return true;
            }
            long now = System.nanoTime();
            if (sum != lastSum) {
                lastSum = sum;
                lastProgress = now;
            } else if (now - lastProgress > stallNanos) {
                return false;
            }
            LockSupport.parkNanos(200_000);
        }
    }
}
