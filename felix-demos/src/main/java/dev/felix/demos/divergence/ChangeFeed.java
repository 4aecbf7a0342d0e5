package dev.felix.demos.divergence;

import java.time.Duration;

/** One consumer's read side of a change source. One thread reads it. */
interface ChangeFeed extends AutoCloseable {

    /** The offset of the first change this feed will deliver (the tail when it subscribed). */
    long startOffset();

    /** The next item, or null if none arrived within {@code timeout}. */
    FeedItem next(Duration timeout) throws FeedEndedException;

    @Override
    void close();

    /** The feed ended before the consumer stopped it; the message says why. */
    final class FeedEndedException extends Exception {
        private static final long serialVersionUID = 1L;

        FeedEndedException(String message) {
            super(message);
        }
    }
}
