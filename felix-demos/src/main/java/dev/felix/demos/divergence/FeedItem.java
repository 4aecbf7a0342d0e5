package dev.felix.demos.divergence;

/** What a consumer reads from a change feed: a change at an offset, or a notice of changes it missed. */
sealed interface FeedItem {

    /** A change, as published. */
    record Change(long offset, byte[] payload) implements FeedItem {
    }

    /** Offsets {@code from..to} (inclusive) will never arrive, and why. */
    record Missed(long from, long to, String reason) implements FeedItem {
    }
}
