package dev.felix.storage;

import java.util.Arrays;

/**
 * <b>Single writer, lock-free readers</b> (details under "Concurrency" below).
 *
 * <p>The in-memory sparse index of one segment: {@code (offset, position)} entries in ascending order, emitted
 * by the rule in {@link IndexDescriptor} so that appending and rebuilding produce the same entries.
 *
 * <p><b>Concurrency:</b> a single writer (the log's appender under its append lock, or recovery before the
 * log is published) adds entries; any number of readers look them up without locking. The writer stores
 * the entry, then publishes it with a volatile write of {@code count}; a reader reads {@code count} first
 * and only looks at entries below it. {@link #truncateTo} requires that no reader runs (the log holds its
 * exclusive lifecycle lock).
 */
final class SparseIndex {
    private static final int INITIAL_CAPACITY = 16;

    private final int spacingBytes;
    /** Interleaved {offset, position} pairs; replaced (never shrunk in place) when it grows. */
    private volatile long[] entries = new long[INITIAL_CAPACITY * 2];
    private volatile int count;

    SparseIndex(final int spacingBytes) {
        this.spacingBytes = spacingBytes;
    }

    /**
     * Applies the emission rule to the record at {@code position}; adds and returns true when it emits.
     * Writer only.
     */
    boolean observe(final long offset, final long position) {
        final int n = count;
        if (n > 0 && position - entries[2 * (n - 1) + 1] < spacingBytes) {
            return false;
        }
        add(offset, position);
        return true;
    }

    /** Appends an entry unconditionally (used when loading a validated index file). Writer only. */
    void add(final long offset, final long position) {
        final int n = count;
        long[] e = entries;
        if (2 * n + 2 > e.length) {
            e = Arrays.copyOf(e, e.length * 2);
            entries = e;
        }
        e[2 * n] = offset;
        e[2 * n + 1] = position;
        count = n + 1;
    }

    /** Drops every entry at or after byte {@code position}. Requires that no reader runs concurrently. */
    void truncateTo(final long position) {
        int n = count;
        final long[] e = entries;
        while (n > 0 && e[2 * (n - 1) + 1] >= position) {
            n--;
        }
        count = n;
    }

    /** Number of published entries. */
    int count() {
        return count;
    }

    /**
     * Index of the greatest entry whose offset is &le; {@code target}, or -1 when there is none (then scan
     * from the first record).
     */
    int floor(final long target) {
        final int n = count;
        final long[] e = entries;
        int lo = 0;
        int hi = n - 1;
        int found = -1;
        while (lo <= hi) {
            final int mid = (lo + hi) >>> 1;
            if (e[2 * mid] <= target) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found;
    }

    long offsetAt(final int i) {
        return entries[2 * i];
    }

    long positionAt(final int i) {
        return entries[2 * i + 1];
    }

    /** A copy of the first {@code count()} entries as interleaved pairs. */
    long[] snapshot() {
        final int n = count;
        return Arrays.copyOf(entries, 2 * n);
    }
}
