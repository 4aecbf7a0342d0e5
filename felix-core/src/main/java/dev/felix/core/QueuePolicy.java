package dev.felix.core;

import java.util.Locale;

/**
 * What a bounded queue does when it is full. Every queue in Felix has one of these, a limit in events
 * and bytes, and a counter of what it blocked or dropped.
 */
public enum QueuePolicy {
    /** Wait for space: lossless, and the producer (ultimately the publisher) is slowed down. */
    BLOCK,
    /** Drop the newest event; the consumer is told with a gap notice. */
    DROP_NEW,
    /** Evict the oldest queued events to make room; the consumer is told with a gap notice. */
    DROP_OLD,
    /**
     * Durable streams: stop feeding this subscriber from memory and read it from the log until it is
     * back at the tail. Nothing is lost and nobody else slows down.
     */
    CATCH_UP;

    private final String wireName = name().toLowerCase(Locale.ROOT);

    /** The name used on the wire and in configuration, e.g. {@code drop_new}. */
    public String wireName() {
        return wireName;
    }

    /** Parses a wire/config name; the message lists the valid ones. */
    public static QueuePolicy parse(String name) {
        for (QueuePolicy p : values()) {
            if (p.wireName.equals(name)) {
                return p;
            }
        }
        throw new IllegalArgumentException("unknown queue policy '" + name
                + "'; expected block, drop_new, drop_old or catch_up");
    }
}
