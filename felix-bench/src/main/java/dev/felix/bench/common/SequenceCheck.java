package dev.felix.bench.common;

/**
 * Checks that one subscriber receives sequence numbers 0, 1, 2, ... each exactly once, in order. Any
 * deviation is a failed run: a benchmark that loses or repeats what it times is measuring something
 * else. Single-threaded (the subscriber's delivery thread); the counters are read by others only after
 * the run, or as a progress hint.
 */
public final class SequenceCheck {

    private long expected;
    private volatile long received;
    private long missing;
    private long duplicated;
    private long reordered;

    /** Records one delivery; returns false if it was not the next expected sequence number. */
    public boolean accept(long seq) {
        boolean inOrder = seq == expected;
        if (inOrder) {
            expected++;
        } else if (seq > expected) {
            missing += seq - expected; // a jump: everything in between never came (so far)
            expected = seq + 1;
        } else {
            // Old news: either a repeat or a late arrival of something counted missing.
            if (missing > 0) {
                reordered++;
                missing--;
            } else {
                duplicated++;
            }
        }
        // Written last: a thread that reads `received` also sees everything recorded before it.
        received = received + 1;
        return inOrder;
    }

    /** Deliveries seen, good or bad. */
    public long received() {
        return received;
    }

    /** The next sequence number expected: every one below it was seen (or counted missing). */
    public long expected() {
        return expected;
    }

    /**
     * Errors so far, counting the tail too: with {@code total} messages published, any not yet seen are
     * missing.
     */
    public long errors(long total) {
        return missing + duplicated + reordered + Math.max(0, total - expected);
    }

    /** A short account, e.g. {@code "3 missing, 1 duplicated"}, or {@code "ok"}. */
    public String describe(long total) {
        long tail = Math.max(0, total - expected);
        if (missing + duplicated + reordered + tail == 0) {
            return "ok";
        }
        return (missing + tail) + " missing, " + duplicated + " duplicated, " + reordered + " reordered";
    }
}
