package dev.felix.cluster.relay;

import java.time.Duration;
import java.util.Objects;

/**
 * Tuning of a node's cross-node relay. Immutable; the {@link Builder} is for one thread.
 *
 * <p>Every value is checked by the constructor (so {@link Builder#build()} and a direct construction agree);
 * a bad one throws {@link IllegalArgumentException} whose message names the setting and its allowed range.
 *
 * <table>
 *   <caption>Settings and defaults</caption>
 *   <tr><th>setting</th><th>default</th><th>meaning</th></tr>
 *   <tr><td>{@value #WORKERS}</td><td>{@value #DEFAULT_WORKERS}</td><td>delivery workers; each relayed shard is
 *       delivered by exactly one, in order</td></tr>
 *   <tr><td>{@value #QUEUE_BATCHES}</td><td>{@value #DEFAULT_QUEUE_BATCHES}</td><td>batches one worker holds
 *       waiting; a batch routed to a full worker is lost (known loss, {@code queue_full})</td></tr>
 *   <tr><td>{@value #DEADLINE}</td><td>2 s</td><td>a batch not delivered this long after the node received it
 *       is lost ({@code stale}) and never delivered late</td></tr>
 *   <tr><td>{@value #CLOSES_PER_WINDOW}</td><td>{@value #DEFAULT_CLOSES_PER_WINDOW}</td><td>resync closes the
 *       node's paced closer makes at most per close window</td></tr>
 *   <tr><td>{@value #CLOSE_WINDOW}</td><td>10 ms</td><td>the close window</td></tr>
 *   <tr><td>{@value #DISPATCHER_BACKLOG}</td><td>{@value #DEFAULT_DISPATCHER_BACKLOG}</td><td>batches received
 *       but not yet routed; a source that finds it full means the dispatcher fell behind (unknown loss: every
 *       subscription of the relay is fenced)</td></tr>
 * </table>
 *
 * @param workers          delivery workers
 * @param queueBatches     batches each worker's queue holds
 * @param deadline         delivery deadline, from the node receiving a batch
 * @param closesPerWindow  paced closes per window
 * @param closeWindow      the pacing window
 * @param dispatcherBacklog batches waiting for the dispatcher
 */
public record RelaySettings(int workers, int queueBatches, Duration deadline, int closesPerWindow,
                            Duration closeWindow, int dispatcherBacklog) {

    public static final String WORKERS = "cluster_relay_workers";
    public static final String QUEUE_BATCHES = "cluster_relay_queue_batches";
    public static final String DEADLINE = "cluster_relay_deadline_ms";
    public static final String CLOSES_PER_WINDOW = "cluster_relay_closes_per_window";
    public static final String CLOSE_WINDOW = "cluster_relay_close_window_ms";
    public static final String DISPATCHER_BACKLOG = "cluster_relay_dispatcher_backlog";

    public static final int DEFAULT_WORKERS = 16;
    public static final int DEFAULT_QUEUE_BATCHES = 1024;
    public static final Duration DEFAULT_DEADLINE = Duration.ofSeconds(2);
    public static final int DEFAULT_CLOSES_PER_WINDOW = 50;
    public static final Duration DEFAULT_CLOSE_WINDOW = Duration.ofMillis(10);
    public static final int DEFAULT_DISPATCHER_BACKLOG = 16_384;

    /** Most workers: a worker is a lane of ordered delivery, not a thread, but each owns a queue. */
    public static final int MAX_WORKERS = 1024;
    /** Largest worker queue and dispatcher backlog. */
    public static final int MAX_QUEUE = 1 << 20;

    public RelaySettings {
        range(WORKERS, workers, 1, MAX_WORKERS);
        range(QUEUE_BATCHES, queueBatches, 1, MAX_QUEUE);
        range(CLOSES_PER_WINDOW, closesPerWindow, 1, 1_000_000);
        range(DISPATCHER_BACKLOG, dispatcherBacklog, 1, MAX_QUEUE);
        positiveMillis(DEADLINE, deadline);
        positiveMillis(CLOSE_WINDOW, closeWindow);
    }

    /** Every default. */
    public static RelaySettings defaults() {
        return builder().build();
    }

    public static Builder builder() {
        return new Builder();
    }

    long deadlineNanos() {
        return deadline.toNanos();
    }

    private static void range(String setting, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(setting + " must be within [" + min + ", " + max + "], was " + value);
        }
    }

    private static void positiveMillis(String setting, Duration value) {
        Objects.requireNonNull(value, setting);
        if (value.toMillis() < 1) {
            throw new IllegalArgumentException(setting + " must be at least 1 ms, was " + value.toMillis() + " ms");
        }
    }

    /** Builds {@link RelaySettings}; unset values take the defaults in the class table; each setter checks now. */
    public static final class Builder {
        private int workers = DEFAULT_WORKERS;
        private int queueBatches = DEFAULT_QUEUE_BATCHES;
        private Duration deadline = DEFAULT_DEADLINE;
        private int closesPerWindow = DEFAULT_CLOSES_PER_WINDOW;
        private Duration closeWindow = DEFAULT_CLOSE_WINDOW;
        private int dispatcherBacklog = DEFAULT_DISPATCHER_BACKLOG;

        private Builder() {
        }

        public Builder workers(int value) {
            range(WORKERS, value, 1, MAX_WORKERS);
            this.workers = value;
            return this;
        }

        public Builder queueBatches(int value) {
            range(QUEUE_BATCHES, value, 1, MAX_QUEUE);
            this.queueBatches = value;
            return this;
        }

        public Builder deadline(Duration value) {
            positiveMillis(DEADLINE, value);
            this.deadline = value;
            return this;
        }

        public Builder closesPerWindow(int value) {
            range(CLOSES_PER_WINDOW, value, 1, 1_000_000);
            this.closesPerWindow = value;
            return this;
        }

        public Builder closeWindow(Duration value) {
            positiveMillis(CLOSE_WINDOW, value);
            this.closeWindow = value;
            return this;
        }

        public Builder dispatcherBacklog(int value) {
            range(DISPATCHER_BACKLOG, value, 1, MAX_QUEUE);
            this.dispatcherBacklog = value;
            return this;
        }

        public RelaySettings build() {
            return new RelaySettings(workers, queueBatches, deadline, closesPerWindow, closeWindow, dispatcherBacklog);
        }
    }
}
