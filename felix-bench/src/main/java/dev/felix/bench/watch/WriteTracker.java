package dev.felix.bench.watch;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * Knows every write of a run and when each watcher ("mirror") applied it, so propagation latency is
 * measured for every write at every mirror, whatever the system coalesces.
 *
 * <h2>What "applied" means</h2>
 * Write {@code w} of key {@code k} is applied at mirror {@code m} the first time {@code m}'s copy holds a
 * value of {@code k} written at or after {@code w}. A system that delivers every change (Felix, etcd, NATS
 * KV) produces one sample per change as it arrives; one that may skip intermediate values (a Redis
 * watcher's GET returns the newest value, a Felix mirror that re-snapshots after falling behind) still
 * produces exactly one sample per write and mirror: the skipped writes are applied when the newer value
 * lands. So every run has {@code writes × mirrors} samples exactly, or it did not converge.
 *
 * <h2>How</h2>
 * Writes get a global index {@code g} in issue order. Each value carries {@code g} (see {@link #value}), and
 * each write remembers the previous write of its key, so a mirror that applies {@code g} walks the chain
 * back to the last write of that key it had applied and records one sample per write on the way. Per
 * write, a countdown of mirrors still to apply it yields the "applied at all mirrors" latency (the max
 * over mirrors) when it reaches zero.
 *
 * <h2>Threads</h2>
 * {@link #beginPhase}, {@link #record}, {@link #endPhase} and {@link #expectedValue} are for the one
 * writer thread. {@link #apply} is called by every mirror's own thread; calls for one mirror are
 * serialised by a lock on that mirror's state (uncontended unless a system calls one listener from two
 * threads). A write is published (a volatile store) before its put is issued, so a mirror that sees its
 * value sees its bookkeeping.
 */
final class WriteTracker {

    /** Bytes at the start of every value: g (8), issue nanoTime (8), key index (4). */
    static final int HEADER_BYTES = 20;
    /** Latencies are recorded in microseconds up to this (one minute); longer ones are clamped. */
    static final long MAX_MICROS = 60_000_000L;

    private static final int CHUNK_BITS = 16;
    private static final int CHUNK = 1 << CHUNK_BITS;
    private static final int MASK = CHUNK - 1;
    private static final int MAX_CHUNKS = 1 << 14; // 2^30 writes
    private static final int MAX_PHASES = 255;
    /** Mirrors record into this many locked histograms per phase (mirror m into stripe m % STRIPES). */
    private static final int STRIPES = 8;

    private final int keys;
    private final int mirrors;
    private final int valueBytes;
    private final AtomicReferenceArray<Chunk> chunks = new AtomicReferenceArray<>(MAX_CHUNKS);
    private final AtomicReferenceArray<Phase> phases = new AtomicReferenceArray<>(MAX_PHASES);
    private final MirrorState[] mirrorStates;
    /** Deliveries (write × mirror) not yet applied, over all phases. */
    private final AtomicLong outstanding = new AtomicLong();
    /** (write, mirror) samples recorded, over all phases. */
    private final LongAdder samples = new LongAdder();
    private volatile int published;

    // Writer-thread state.
    private final int[] lastWrite;
    private int count;
    private int phaseCount;
    private Phase current;

    WriteTracker(int keys, int mirrors, int valueBytes) {
        if (keys < 1 || mirrors < 1) {
            throw new IllegalArgumentException("keys and mirrors must be >= 1, were " + keys + ", " + mirrors);
        }
        if (valueBytes < HEADER_BYTES) {
            throw new IllegalArgumentException("values must be >= " + HEADER_BYTES + " bytes, was " + valueBytes);
        }
        this.keys = keys;
        this.mirrors = mirrors;
        this.valueBytes = valueBytes;
        this.lastWrite = new int[keys];
        Arrays.fill(lastWrite, -1);
        this.mirrorStates = new MirrorState[mirrors];
        for (int m = 0; m < mirrors; m++) {
            mirrorStates[m] = new MirrorState(keys);
        }
    }

    int mirrors() {
        return mirrors;
    }

    int keys() {
        return keys;
    }

    // ------------------------------------------------------------------ writer side

    /** Starts a phase: writes recorded from now on count towards it. Ends the previous one. */
    Phase beginPhase(String name) {
        if (current != null) {
            endPhase();
        }
        if (phaseCount == MAX_PHASES) {
            throw new IllegalStateException("more than " + MAX_PHASES + " phases");
        }
        Phase p = new Phase(name, phaseCount, count);
        phases.set(phaseCount++, p);
        current = p;
        return p;
    }

    /** Ends the current phase (no more writes count towards it). */
    void endPhase() {
        if (current != null) {
            current.end = count;
            current = null;
        }
    }

    /** Records a write of key {@code key} about to be issued at {@code issueNanos}; returns its index. */
    int record(int key, long issueNanos) {
        if (current == null) {
            throw new IllegalStateException("no phase begun");
        }
        int g = count;
        int ci = g >>> CHUNK_BITS;
        if (ci >= MAX_CHUNKS) {
            throw new IllegalStateException("more than " + ((long) MAX_CHUNKS << CHUNK_BITS) + " writes");
        }
        Chunk c = chunks.get(ci);
        if (c == null) {
            c = new Chunk();
            chunks.set(ci, c);
        }
        int i = g & MASK;
        c.issue[i] = issueNanos;
        c.prev[i] = lastWrite[key];
        c.phase[i] = (byte) current.id;
        c.pending.set(i, mirrors);
        lastWrite[key] = g;
        count = g + 1;
        current.outstanding.addAndGet(mirrors);
        outstanding.addAndGet(mirrors);
        published = count; // release: everything above is visible to a mirror that reads `published`
        return g;
    }

    /** Writes recorded so far. */
    int writes() {
        return count;
    }

    /** The value write {@code g} of key {@code key} carries: its index, issue time, key, then filler. */
    byte[] value(int g, int key) {
        long issue = chunks.get(g >>> CHUNK_BITS).issue[g & MASK];
        byte[] v = new byte[valueBytes];
        putLong(v, 0, g);
        putLong(v, 8, issue);
        putInt(v, 16, key);
        for (int j = HEADER_BYTES; j < v.length; j++) {
            v[j] = (byte) (g + j);
        }
        return v;
    }

    /** The last value written to {@code key}, or null if it was never written. Writer thread. */
    byte[] expectedValue(int key) {
        int g = lastWrite[key];
        return g < 0 ? null : value(g, key);
    }

    // ------------------------------------------------------------------ mirror side

    /**
     * Mirror {@code mirror} now holds {@code value} (of the key the value names) as of {@code nowNanos}.
     * Values at or before what the mirror already holds for that key are ignored.
     *
     * @return false if the value is not one this tracker issued (the harness then reports the mirror as
     *         holding foreign data)
     */
    boolean apply(int mirror, byte[] value, long nowNanos) {
        if (value == null || value.length < HEADER_BYTES) {
            return false;
        }
        long g64 = getLong(value, 0);
        int key = getInt(value, 16);
        if (g64 < 0 || g64 >= Integer.MAX_VALUE || key < 0 || key >= keys) {
            return false;
        }
        int g = (int) g64;
        while (g >= published) { // cannot happen: the value was written after its write was published
            Thread.onSpinWait();
        }
        MirrorState s = mirrorStates[mirror];
        synchronized (s) {
            int last = s.lastApplied[key];
            if (g <= last) {
                return true;
            }
            for (int h = g; h > last; ) {
                Chunk c = chunks.get(h >>> CHUNK_BITS);
                int i = h & MASK;
                sample(mirror, c, i, nowNanos);
                h = c.prev[i];
            }
            s.lastApplied[key] = g;
        }
        return true;
    }

    private void sample(int mirror, Chunk c, int i, long now) {
        long issue = c.issue[i];
        Phase p = phases.get(c.phase[i] & 0xff);
        p.record(mirror, now - issue);
        c.lastApply.accumulateAndGet(i, now, Math::max);
        if (c.pending.decrementAndGet(i) == 0) {
            p.recordAll(c.lastApply.get(i) - issue);
        }
        p.outstanding.decrementAndGet();
        samples.increment();
        outstanding.decrementAndGet();
    }

    /** (write, mirror) samples recorded so far, over every phase. */
    long samples() {
        return samples.sum();
    }

    /** Deliveries (write × mirror) not yet applied, over every phase. */
    long outstanding() {
        return outstanding.get();
    }

    /**
     * Waits until every write recorded so far is applied at every mirror, until the deadline, or until
     * {@code abort} says stop. Polls every 200 µs: this is a measurement harness, not a test.
     */
    boolean awaitApplied(long deadlineNanos, BooleanSupplier abort) {
        while (outstanding.get() > 0) {
            if (System.nanoTime() > deadlineNanos || abort.getAsBoolean()) {
                return outstanding.get() == 0;
            }
            LockSupport.parkNanos(200_000);
        }
        return true;
    }

    // ------------------------------------------------------------------ types

    private static final class Chunk {
        final long[] issue = new long[CHUNK];
        final int[] prev = new int[CHUNK];
        final byte[] phase = new byte[CHUNK];
        final AtomicIntegerArray pending = new AtomicIntegerArray(CHUNK);
        final AtomicLongArray lastApply = new AtomicLongArray(CHUNK);
    }

    private static final class MirrorState {
        final int[] lastApplied;

        MirrorState(int keys) {
            lastApplied = new int[keys];
            Arrays.fill(lastApplied, -1);
        }
    }

    /** One stretch of the run (warm-up, latency, a ramp step) with its own latency distributions. */
    static final class Phase {
        final String name;
        final int id;
        final int first;
        volatile int end = -1;
        final AtomicLong outstanding = new AtomicLong();
        private final Histogram[] stripes = new Histogram[STRIPES];
        private final Histogram all = newHistogram();

        Phase(String name, int id, int first) {
            this.name = name;
            this.id = id;
            this.first = first;
            for (int i = 0; i < STRIPES; i++) {
                stripes[i] = newHistogram();
            }
        }

        /** Writes in this phase (so far, while it is open). */
        int writes(WriteTracker t) {
            int e = end;
            return (e < 0 ? t.count : e) - first;
        }

        void record(int mirror, long nanos) {
            Histogram h = stripes[mirror % STRIPES];
            synchronized (h) {
                h.recordValue(micros(nanos));
            }
        }

        void recordAll(long nanos) {
            synchronized (all) {
                all.recordValue(micros(nanos));
            }
        }

        /** Every (write, mirror) sample so far, in µs: "to every mirror". */
        Histogram everyMirror() {
            Histogram merged = newHistogram();
            for (Histogram h : stripes) {
                synchronized (h) {
                    merged.add(h);
                }
            }
            return merged;
        }

        /** Per write, the time until the last mirror applied it, in µs: "to all mirrors". */
        Histogram allMirrors() {
            synchronized (all) {
                return all.copy();
            }
        }

        private static long micros(long nanos) {
            return Math.max(1, Math.min(MAX_MICROS, nanos / 1_000));
        }

        private static Histogram newHistogram() {
            return new Histogram(MAX_MICROS, 3);
        }
    }

    /** The write index a value carries, or -1 if it is not one of ours. */
    static long index(byte[] value) {
        return value == null || value.length < HEADER_BYTES ? -1 : getLong(value, 0);
    }

    /** The issue time a value carries. */
    static long issueNanos(byte[] value) {
        return getLong(value, 8);
    }

    // ------------------------------------------------------------------ bytes

    private static void putLong(byte[] b, int at, long v) {
        for (int i = 7; i >= 0; i--) {
            b[at + i] = (byte) v;
            v >>>= 8;
        }
    }

    private static void putInt(byte[] b, int at, int v) {
        for (int i = 3; i >= 0; i--) {
            b[at + i] = (byte) v;
            v >>>= 8;
        }
    }

    private static long getLong(byte[] b, int at) {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = (v << 8) | (b[at + i] & 0xff);
        }
        return v;
    }

    private static int getInt(byte[] b, int at) {
        int v = 0;
        for (int i = 0; i < 4; i++) {
            v = (v << 8) | (b[at + i] & 0xff);
        }
        return v;
    }
}
