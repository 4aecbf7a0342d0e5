package dev.felix.cluster.replication;

import java.time.Duration;
import java.util.Objects;

/**
 * Tuning of shard replication; defaults in {@link #defaults()}.
 *
 * @param quorumWindow   how long a {@code quorum} batch may wait for a majority after its local append before
 *                       its publisher is answered {@code quorum_timeout} (5 s: the text clients get names it)
 * @param fetchMaxBytes  record bytes one fetch answer carries at most
 * @param fetchWait      how long a leader holds a fetch it has nothing new for (long poll)
 * @param retryBackoff   first pause before a follower retries after a failure (doubles up to 2 s)
 * @param tick           how often quorum windows and parked fetches are checked
 * @param ioThreads      threads that read and write replica logs
 */
public record ReplicationSettings(Duration quorumWindow, int fetchMaxBytes, Duration fetchWait, Duration retryBackoff,
                                  Duration tick, int ioThreads) {

    public ReplicationSettings {
        Objects.requireNonNull(quorumWindow, "quorumWindow");
        Objects.requireNonNull(fetchWait, "fetchWait");
        Objects.requireNonNull(retryBackoff, "retryBackoff");
        Objects.requireNonNull(tick, "tick");
        if (quorumWindow.isNegative() || quorumWindow.isZero()) {
            throw new IllegalArgumentException("quorum window must be positive, was " + quorumWindow);
        }
        if (fetchMaxBytes < 64 << 10 || fetchMaxBytes > 8 << 20) {
            throw new IllegalArgumentException("fetch max bytes must be within [64 KiB, 8 MiB], was " + fetchMaxBytes);
        }
        if (ioThreads < 1) {
            throw new IllegalArgumentException("replication io threads must be >= 1, was " + ioThreads);
        }
    }

    public static ReplicationSettings defaults() {
        return new ReplicationSettings(Duration.ofSeconds(5), 1 << 20, Duration.ofMillis(500), Duration.ofMillis(100),
                Duration.ofMillis(50), 2);
    }

    /** The refusal text of a batch that reached no majority in time. */
    public String quorumTimeoutText() {
        long ms = quorumWindow.toMillis();
        String window = ms % 1000 == 0 ? (ms / 1000) + "s" : ms + "ms";
        return "the batch is durable here but did not reach a majority within " + window;
    }
}
