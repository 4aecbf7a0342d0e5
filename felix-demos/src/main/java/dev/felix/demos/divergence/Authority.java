package dev.felix.demos.divergence;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The source of truth: the latest value of every key, and the global version counter. The publisher
 * updates it before publishing, so a change the consumers never see still counts as the truth.
 */
final class Authority {

    private final AtomicLong version = new AtomicLong();
    /** Per key: the version that wrote it, 0 if never written. */
    private final AtomicLongArray versions;
    private final AtomicLongArray values;

    Authority(int keys) {
        versions = new AtomicLongArray(keys);
        values = new AtomicLongArray(keys);
    }

    /** The next global version, from 1; taken even if the publish then fails, as upstream. */
    long nextVersion() {
        return version.incrementAndGet();
    }

    void set(int key, long ver, long value) {
        values.set(key, value);
        versions.set(key, ver);
    }

    /** Keys written so far and their values. */
    Snapshot snapshot() {
        int n = values.length();
        boolean[] written = new boolean[n];
        long[] vals = new long[n];
        for (int i = 0; i < n; i++) {
            if (versions.get(i) != 0) {
                written[i] = true;
                vals[i] = values.get(i);
            }
        }
        return new Snapshot(written, vals);
    }

    /** Authority state at one moment. */
    record Snapshot(boolean[] written, long[] values) {
    }
}
