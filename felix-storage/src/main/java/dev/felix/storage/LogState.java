package dev.felix.storage;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;

/**
 * <b>Immutable; thread-safe</b> (the segments it lists are not: see {@link Segment}).
 *
 * <p>An immutable view of a log's segments: the sealed ones (oldest first) and the active one. A log publishes
 * a new {@code LogState} for every structural change (roll, retention, truncate); readers work on the one they
 * picked up.
 *
 * @param sealed sealed segments, ascending base offset; unmodifiable
 * @param active the segment appends go to
 */
record LogState(List<Segment> sealed, Segment active) {

    LogState {
        sealed = List.copyOf(sealed);
    }

    /** Oldest retained offset. */
    long baseOffset() {
        return sealed.isEmpty() ? active.baseOffset : sealed.get(0).baseOffset;
    }

    /** All segments, oldest first, active last. */
    List<Segment> all() {
        final List<Segment> all = new ArrayList<>(sealed.size() + 1);
        all.addAll(sealed);
        all.add(active);
        return Collections.unmodifiableList(all);
    }

    int segmentCount() {
        return sealed.size() + 1;
    }

    /** The state after the active segment was sealed and {@code next} became active. */
    LogState rolled(final Segment next) {
        final List<Segment> s = new ArrayList<>(sealed.size() + 1);
        s.addAll(sealed);
        s.add(active);
        return new LogState(s, next);
    }

    /** The state without the given head segments (identity match; must be sealed). */
    LogState without(final Set<Segment> removed) {
        final List<Segment> s = new ArrayList<>(sealed.size());
        for (final Segment seg : sealed) {
            if (!removed.contains(seg)) {
                s.add(seg);
            }
        }
        return new LogState(s, active);
    }

    /**
     * Index in {@link #all()} of the segment that holds {@code offset}: the last one whose base offset is
     * &le; {@code offset}. The caller guarantees {@code baseOffset() <= offset}.
     */
    int segmentIndexFor(final long offset) {
        int lo = 0;
        int hi = sealed.size();
        int found = 0;
        while (lo <= hi) {
            final int mid = (lo + hi) >>> 1;
            final long base = mid == sealed.size() ? active.baseOffset : sealed.get(mid).baseOffset;
            if (base <= offset) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found;
    }

    /** Segment {@code i} of {@link #all()} without building the list. */
    Segment segment(final int i) {
        return i == sealed.size() ? active : sealed.get(i);
    }

    /** Total bytes of all segments. */
    long totalBytes() {
        long total = active.size();
        for (final Segment s : sealed) {
            total += s.size();
        }
        return total;
    }
}
