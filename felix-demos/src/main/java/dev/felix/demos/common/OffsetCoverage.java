package dev.felix.demos.common;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * Checks "loss is never silent" for one consumer of one shard: every offset from where it started to
 * the end of what was published must have been either delivered or named by a gap notice, in order,
 * exactly once.
 *
 * <p>Written by the consumer's thread only; the counters are volatile so a live view can read them.
 */
public final class OffsetCoverage {

    /** SDK gap reason for an offset jump the broker did not announce; counted as silent loss. */
    public static final String UNANNOUNCED = "unannounced";

    /** Reason recorded for offsets a fresh snapshot replaced: nothing lost, the snapshot holds their effect. */
    public static final String SNAPSHOT = "snapshot";

    private final long startOffset;
    /** The first offset not yet accounted for; volatile so the run can wait for a consumer to reach the end. */
    private volatile long next;
    private volatile long events;
    private volatile long gapNotices;
    private volatile long announcedMissed;
    private volatile long silentMissed;
    private volatile long outOfOrder;
    private final Map<String, Long> missedByReason = new TreeMap<>();

    /** @param startOffset the first offset this consumer should see (the tail when it subscribed) */
    public OffsetCoverage(long startOffset) {
        this.startOffset = startOffset;
        this.next = startOffset;
    }

    public void onEvent(long offset) {
        if (offset < next) {
            outOfOrder++; // a duplicate or a reordering: never expected
            return;
        }
        if (offset > next) {
            silentMissed += offset - next; // skipped without a notice
        }
        next = offset + 1;
        events++;
    }

    public void onGap(long from, long to, String reason) {
        if (from < next) {
            outOfOrder++; // a notice for offsets already accounted for
            from = next;
        }
        if (from > next) {
            silentMissed += from - next;
        }
        long count = to - from + 1;
        if (count > 0) {
            if (UNANNOUNCED.equals(reason)) {
                silentMissed += count;
            } else {
                announcedMissed += count;
            }
            missedByReason.merge(reason, count, Long::sum);
        }
        gapNotices++;
        next = Math.max(next, to + 1);
    }

    /**
     * A fresh snapshot at {@code offset} replaced the consumer's state: the offsets below it that it had not
     * seen are accounted for by the snapshot (announced, under {@link #SNAPSHOT}), not lost.
     */
    public void onSnapshot(long offset) {
        if (offset > next) {
            onGap(next, offset - 1, SNAPSHOT);
        }
    }

    /** The first offset not yet delivered or announced. */
    public long position() {
        return next;
    }

    public long events() {
        return events;
    }

    public long gapNotices() {
        return gapNotices;
    }

    public long announcedMissed() {
        return announcedMissed;
    }

    /**
     * The final account against what was published: offsets {@code [start, publishedEnd)}.
     * Call once the consumer thread has stopped.
     */
    public Coverage against(long publishedEnd) {
        long expected = Math.max(0, publishedEnd - startOffset);
        long notReached = Math.max(0, publishedEnd - next);
        return new Coverage(expected, events, gapNotices, announcedMissed, silentMissed, outOfOrder, notReached,
                Collections.unmodifiableMap(new TreeMap<>(missedByReason)));
    }

    /**
     * One consumer's account of a shard.
     *
     * @param published        offsets published since it subscribed
     * @param delivered        events it received
     * @param gapNotices       gap notices it received
     * @param announcedMissed  events those notices named
     * @param silentMissed     events it skipped with no notice (must be 0)
     * @param outOfOrder       duplicates or reordered items (must be 0)
     * @param notReached       offsets at the end it had neither received nor been told about (still
     *                         in flight when the run ended; a backlog, not a loss)
     * @param missedByReason   announced misses by gap reason
     */
    public record Coverage(long published, long delivered, long gapNotices, long announcedMissed, long silentMissed,
            long outOfOrder, long notReached, Map<String, Long> missedByReason) {

        /** Events it did not get (announced or not); a backlog still in flight is not counted. */
        public long missed() {
            return announcedMissed + silentMissed;
        }

        /** Every event it did not get was named by a gap notice, and nothing arrived twice or out of order. */
        public boolean everyMissAnnounced() {
            return silentMissed == 0 && outOfOrder == 0;
        }

        /** It got every event, with no gap at all. */
        public boolean complete() {
            return everyMissAnnounced() && announcedMissed == 0 && notReached == 0 && delivered == published;
        }

        /** One line: what the consumer was told, and whether that covers everything it missed. */
        public String describe() {
            StringBuilder b = new StringBuilder();
            if (gapNotices == 0) {
                b.append("no gap notices");
            } else {
                b.append(gapNotices).append(gapNotices == 1 ? " gap notice" : " gap notices").append(" naming ")
                        .append(announcedMissed).append(" missed events (")
                        .append(String.join(", ", missedByReason.keySet())).append(')');
            }
            if (silentMissed > 0) {
                b.append(" — ").append(silentMissed).append(" events missed WITHOUT a notice");
            } else if (missed() > 0) {
                b.append(" — every missed event announced");
            } else {
                b.append(" — missed nothing");
            }
            if (notReached > 0) {
                b.append("; ").append(notReached).append(" still in flight at the end");
            }
            if (outOfOrder > 0) {
                b.append("; ").append(outOfOrder).append(" out of order or duplicated");
            }
            return b.toString();
        }
    }
}
