package dev.felix.demos.divergence;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A consumer's local copy of the keyspace, built by applying changes last-writer-wins on version.
 * Written by its consumer thread; read by the control loop for the live "wrong now" count.
 */
final class LocalCopy {

    /** Per key: the version applied, 0 if none. */
    private final AtomicLongArray versions;
    private final AtomicLongArray values;

    LocalCopy(int keys) {
        versions = new AtomicLongArray(keys);
        values = new AtomicLongArray(keys);
    }

    /** Applies a change unless the copy already holds that version or a newer one. */
    void apply(ChangePayload change) {
        if (versions.get(change.key()) >= change.version()) {
            return;
        }
        values.set(change.key(), change.value());
        versions.set(change.key(), change.version());
    }

    /**
     * Keys that differ from the authority, ascending: written by the authority and either missing here
     * or holding another value. Keys the authority never wrote are never wrong.
     */
    List<Integer> wrongKeys(Authority.Snapshot truth) {
        List<Integer> wrong = new ArrayList<>();
        for (int k = 0; k < truth.written().length; k++) {
            if (truth.written()[k] && (versions.get(k) == 0 || values.get(k) != truth.values()[k])) {
                wrong.add(k);
            }
        }
        return wrong;
    }
}
