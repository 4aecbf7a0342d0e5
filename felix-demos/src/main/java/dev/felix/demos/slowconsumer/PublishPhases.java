package dev.felix.demos.slowconsumer;

import org.HdrHistogram.Histogram;

/**
 * When each phase began on the telemetry clock, so a subscriber can file a message's latency under the
 * phase it was <em>published</em> in. Upstream files latency by when it is received, which hides the
 * coupling under {@code block}: healthy subscribers receive nothing while the writer is blocked, and
 * the held-back messages arrive, very late, after the stall.
 */
final class PublishPhases {

    private volatile long degradedFrom = Long.MAX_VALUE;
    private volatile long recoveredFrom = Long.MAX_VALUE;

    /** Called by the control loop as each phase starts. */
    void started(SlowConsumerPhase phase, long atNanos) {
        if (phase == SlowConsumerPhase.DEGRADED) {
            degradedFrom = atNanos;
        } else if (phase == SlowConsumerPhase.RECOVERED) {
            recoveredFrom = atNanos;
        }
    }

    SlowConsumerPhase of(long publishNanos) {
        if (publishNanos >= recoveredFrom) {
            return SlowConsumerPhase.RECOVERED;
        }
        return publishNanos >= degradedFrom ? SlowConsumerPhase.DEGRADED : SlowConsumerPhase.BASELINE;
    }

    /** A latency histogram in microseconds, up to an hour, 3 significant digits. */
    static Histogram newHistogram() {
        return new Histogram(3_600_000_000L, 3);
    }
}
