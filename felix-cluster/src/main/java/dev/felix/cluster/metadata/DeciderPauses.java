package dev.felix.cluster.metadata;

import java.util.HashMap;
import java.util.Map;

/**
 * Notices when the failover decider itself did not run for a while (this process was paused: SIGSTOP, a long GC
 * pause, a starved CPU), so that silence it measured across its own pause is not taken for the other nodes'.
 *
 * <p>Why: a node silent for the failure timeout is declared down, and silence is measured on this node's clock
 * from the last heartbeat it read. While this process is paused it reads none, though the heartbeats keep coming
 * (they wait in its sockets). When it resumes, its decider is overdue and runs at once, before those heartbeats are
 * read, and every node looks silent for as long as the pause. A new leader elected right after a pause of the whole
 * cluster counts its predecessor's silence from its last contact before the pause the same way.
 *
 * <p>So a round that starts more than {@code thresholdMillis} after the previous round ended marks a pause, and no
 * silence is counted from before it: the grace of every node starts again at that round ({@link #notBefore}).
 * {@link RaftMetadata} sets the threshold to half the failure timeout, and at least two heartbeat intervals: a pause
 * shorter than that cannot make a node that heartbeats look silent for the whole timeout, and a real failure is then
 * declared at most one failure timeout later than otherwise.
 *
 * <p>Decider thread only.
 */
final class DeciderPauses {

    private final long thresholdMillis;
    private long lastRoundEnd = Long.MIN_VALUE;
    private long resumedAt = Long.MIN_VALUE;

    DeciderPauses(long thresholdMillis) {
        if (thresholdMillis <= 0) {
            throw new IllegalArgumentException("thresholdMillis must be positive: " + thresholdMillis);
        }
        this.thresholdMillis = thresholdMillis;
    }

    /**
     * A round starts at {@code nowMillis}: returns how long the decider had not run if that was a pause (the time
     * since the previous round ended), else 0.
     */
    long roundStarts(long nowMillis) {
        if (lastRoundEnd == Long.MIN_VALUE || nowMillis - lastRoundEnd <= thresholdMillis) {
            return 0;
        }
        resumedAt = nowMillis;
        return nowMillis - lastRoundEnd;
    }

    /** The round that started last has ended at {@code nowMillis}. */
    void roundEnds(long nowMillis) {
        lastRoundEnd = nowMillis;
    }

    /** {@code sinceMillis}, or when the decider last resumed from a pause if that is later. */
    long notBefore(long sinceMillis) {
        return Math.max(sinceMillis, resumedAt);
    }

    /** Each time of {@code silentFrom} moved to {@link #notBefore} it. */
    Map<String, Long> notBefore(Map<String, Long> silentFrom) {
        if (silentFrom.isEmpty() || resumedAt == Long.MIN_VALUE) {
            return silentFrom;
        }
        Map<String, Long> out = new HashMap<>();
        silentFrom.forEach((node, since) -> out.put(node, notBefore(since)));
        return out;
    }
}
