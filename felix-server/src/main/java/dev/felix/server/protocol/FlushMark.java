package dev.felix.server.protocol;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Whether a reply flush is scheduled and, if so, the watch-frame count at which it was: {@link AckWriter} records
 * how many watch frames its replies waited behind ({@code felix_reply_wait_watch_frames}).
 *
 * <p>One atomic for both, so each scheduling is answered by exactly one {@link #take()}. With the two kept apart,
 * a flush that ran while nothing was scheduled (the one at the end of a read) read the mark of a scheduling an
 * earlier flush had already answered, and counted every watch frame written since.
 *
 * <p>{@link #schedule} from any thread that queued a reply; {@link #take} on the stream's event loop.
 */
final class FlushMark {

    /** What {@link #take()} returns when no flush was scheduled since the last take. */
    static final long NOT_SCHEDULED = -1;

    private final AtomicLong scheduledAt = new AtomicLong(NOT_SCHEDULED);

    /** Marks a flush scheduled at {@code watchFrames}; true when the caller must schedule it (none was pending). */
    boolean schedule(long watchFrames) {
        return scheduledAt.get() == NOT_SCHEDULED && scheduledAt.compareAndSet(NOT_SCHEDULED, watchFrames);
    }

    /**
     * Answers the pending scheduling: its mark, or {@link #NOT_SCHEDULED} when none is pending. Take it before
     * draining the queue, so a reply queued after the take schedules (and marks) the next flush.
     */
    long take() {
        return scheduledAt.getAndSet(NOT_SCHEDULED);
    }
}
