package dev.felix.demos.divergence;

import dev.felix.demos.common.OffsetCoverage;
import dev.felix.demos.common.OffsetCoverage.Coverage;

/**
 * How a cache mirror got back to the truth after falling behind.
 *
 * @param restarts     watches the broker ended ({@code watch_ended}, its queue overflowed) that the mirror
 *                     started again, from {@code resume_from} or from a fresh snapshot
 * @param resnapshots  of those, fresh snapshots taken because the broker no longer held the resume offset
 */
public record WatchRecovery(long restarts, long resnapshots) {

    /** One line for the report: how often the watch was ended and how the mirror recovered. */
    String describe(Coverage coverage) {
        StringBuilder b = new StringBuilder();
        if (restarts == 0) {
            b.append("watch never ended");
        } else {
            b.append("watch ended by the broker ").append(restarts).append("x; re-watched ");
            long resumed = restarts - resnapshots;
            if (resnapshots == 0) {
                b.append("from resume_from");
            } else if (resumed == 0) {
                b.append("from a fresh snapshot");
            } else {
                b.append(resumed).append("x from resume_from, ").append(resnapshots).append("x from a fresh snapshot");
            }
        }
        long replaced = coverage.missedByReason().getOrDefault(OffsetCoverage.SNAPSHOT, 0L);
        if (coverage.silentMissed() > 0 || coverage.outOfOrder() > 0) {
            b.append(" — ").append(coverage.silentMissed()).append(" changes skipped, ").append(coverage.outOfOrder())
                    .append(" out of order or twice");
        } else if (replaced > 0) {
            b.append(" — every change applied in order or replaced by a snapshot (").append(replaced)
                    .append(" replaced)");
        } else {
            b.append(" — every change applied, in order, none twice");
        }
        if (coverage.notReached() > 0) {
            b.append("; ").append(coverage.notReached()).append(" changes not reached at the end");
        }
        return b.toString();
    }
}
