package dev.felix.server.protocol;

import io.netty.channel.EventLoop;
import io.netty.util.concurrent.FastThreadLocal;
import java.util.ArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The feeds woken while an event loop handles one client stream's read, drained as that read completes.
 * Feeds are {@link PulledWriter}s (subscription and watch streams) and {@link MuxSession}s.
 *
 * <p><b>Why.</b> A shard writer runs inline in the read that brought the publish (see
 * {@code WriterLoop.allowInlineOnThisThread}), and the subscribers it feeds wake their {@link PulledWriter}s on
 * the same thread. A wake always schedules a drain task; this lets the read's end run those drains first, before
 * the reading stream's own replies are written ({@link AckWriter#flushPending}) and before the event loop turns to
 * its task queue. A delivery then leaves as soon as the batch is made, and the publisher's acknowledgement rides the
 * datagram that acknowledges its read, instead of a datagram of its own after every subscriber's. The tasks still
 * run, and find nothing left: a read that never completes (its stream failed) delays nothing.
 *
 * <p><b>Threads.</b> One instance per event-loop thread; every method acts on the calling thread's instance.
 */
final class ReadBurst {

    private static final Logger LOG = LoggerFactory.getLogger(ReadBurst.class);

    /** Feeds held for one read at most; more than that wait for their tasks. */
    static final int MAX_DEFERRED = 256;

    private static final FastThreadLocal<ReadBurst> ON_THIS_THREAD = new FastThreadLocal<>() {
        @Override
        protected ReadBurst initialValue() {
            return new ReadBurst();
        }
    };

    private final ArrayList<Runnable> woken = new ArrayList<>();
    private boolean open;

    private ReadBurst() {
    }

    /** A client stream's read is being handled on this thread (idempotent within one read). */
    static void begin() {
        ON_THIS_THREAD.get().open = true;
    }

    /**
     * Also runs {@code drain} (already scheduled as a task on {@code loop}) when the read open on this thread
     * completes, if {@code loop} is this thread's. {@code drain} must do nothing harmful when run again.
     */
    static void defer(Runnable drain, EventLoop loop) {
        if (!loop.inEventLoop()) {
            return;
        }
        ReadBurst burst = ON_THIS_THREAD.get();
        if (burst.open && burst.woken.size() < MAX_DEFERRED) {
            burst.woken.add(drain);
        }
    }

    /**
     * The read completed: drains every feed it woke, in the order they were woken. The drains belong to other streams
     * (often other connections) than the one whose read completed: a drain that fails is logged and the others still
     * run, as when each runs as its own event-loop task, and nothing reaches the reading stream's pipeline.
     */
    static void end() {
        ReadBurst burst = ON_THIS_THREAD.get();
        burst.open = false;
        ArrayList<Runnable> woken = burst.woken;
        try {
            for (int i = 0; i < woken.size(); i++) {
                try {
                    woken.get(i).run();
                } catch (RuntimeException | Error e) {
                    LOG.warn("a delivery drain failed at the end of a read; its scheduled task retries it", e);
                }
            }
        } finally {
            woken.clear();
        }
    }
}
