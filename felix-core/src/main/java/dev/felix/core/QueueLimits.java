package dev.felix.core;

/**
 * Capacity of a bounded queue in events and in payload bytes; the queue is full when either is
 * reached. An empty queue always accepts one item however large, so an oversized batch can still
 * make progress.
 */
public record QueueLimits(int events, long bytes) {
    public QueueLimits {
        if (events <= 0) {
            throw new IllegalArgumentException("queue event limit must be positive, was " + events);
        }
        if (bytes <= 0) {
            throw new IllegalArgumentException("queue byte limit must be positive, was " + bytes);
        }
    }
}
