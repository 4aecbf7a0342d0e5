package dev.felix.client;

import dev.felix.wire.ErrorCode;

/**
 * Marks the thread while it runs a {@link NonBlockingHandler}, so an SDK call that would wait refuses at once
 * instead of stalling the I/O thread it would be waiting for (until the request timeout, with every other stream of
 * the connection stopped meanwhile).
 *
 * <p><b>Threads.</b> A thread-local flag: set and cleared by the dispatcher around inline handler turns, read by the
 * waiting calls on the calling thread.
 */
final class NonBlockingScope {

    private static final ThreadLocal<Boolean> ACTIVE = ThreadLocal.withInitial(() -> Boolean.FALSE);

    private NonBlockingScope() {
    }

    /** Marks the calling thread as running a non-blocking handler; returns the previous mark (for nesting). */
    static boolean enter() {
        boolean before = ACTIVE.get();
        ACTIVE.set(Boolean.TRUE);
        return before;
    }

    /** Restores the mark {@link #enter()} returned. */
    static void exit(boolean before) {
        ACTIVE.set(before);
    }

    /** Whether the calling thread is running a {@link NonBlockingHandler}. */
    static boolean active() {
        return ACTIVE.get();
    }

    /**
     * Called by every SDK method that may wait, before it waits.
     *
     * @param what what the caller was about to do ("publish", "subscribe", ...), for the message
     * @throws FelixClientException {@link ErrorCode#BAD_REQUEST} inside a {@link NonBlockingHandler}
     */
    static void refuseWait(String what) {
        if (ACTIVE.get()) {
            throw new FelixClientException(ErrorCode.BAD_REQUEST, "cannot " + what + " inside a NonBlockingHandler:"
                    + " it runs on the connection's I/O thread, which the wait would stall; use the asynchronous"
                    + " form or hand the work to another thread");
        }
    }
}
