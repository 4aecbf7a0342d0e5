package dev.felix.demos.cluster;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * What one subscriber of {@code felix demo cluster-relay-load} was given, offset by offset, from the first offset
 * it is owed ({@code start}): each offset is either <em>delivered</em> (an event), <em>announced</em> by a gap
 * notice ({@code gap{from, to}}), or announced by a refused resubscribe ({@code cursor_too_old} naming the oldest
 * offset still held). A {@code resync} close names where to subscribe again; it must name exactly the first offset
 * the subscriber has not received (see {@link #resync} for one that names a later offset). Anything else is a
 * violation: an event that skips offsets without a notice
 * (silent loss), an event seen twice or out of order, a notice that does not start where delivery stopped.
 *
 * <p>{@link #account} then checks that, over a range of published offsets, delivered plus announced equals
 * published: nothing was lost without being named, nothing named twice.
 *
 * <p><b>Threads.</b> Written by the subscriber's thread; read by the run's thread after that thread has stopped
 * (or under this object's monitor: every method is synchronized).
 */
final class SubscriberLedger {

    /** How one range of offsets was accounted for. */
    record Account(long published, long delivered, long gapAnnounced, long tooOldAnnounced) {
        long announced() {
            return gapAnnounced + tooOldAnnounced;
        }

        boolean balanced() {
            return delivered + announced() == published;
        }
    }

    private final String name;
    private final long start;
    private long next;
    private final BitSet delivered = new BitSet();
    private final BitSet gaps = new BitSet();
    private final BitSet tooOld = new BitSet();
    private final List<String> violations = new ArrayList<>();
    private int resyncs;
    private int resyncsAhead;
    private long resyncAheadEvents;

    SubscriberLedger(String name, long start) {
        this.name = name;
        this.start = start;
        this.next = start;
    }

    String name() {
        return name;
    }

    /** The first offset this subscriber has neither received nor been told it lost. */
    synchronized long next() {
        return next;
    }

    /** {@code count} events from {@code base} arrived. */
    synchronized void events(long base, int count) {
        if (base > next) {
            violation("offsets " + next + ".." + (base - 1) + " skipped without a notice (silent loss)");
        } else if (base < next) {
            violation("offset " + base + " arrived again or out of order (expected " + next + ")");
        }
        for (long o = Math.max(base, start); o < base + count; o++) {
            int i = index(o);
            if (delivered.get(i) || gaps.get(i) || tooOld.get(i)) {
                violation("offset " + o + " accounted for twice");
            }
            delivered.set(i);
        }
        next = Math.max(next, base + count);
    }

    /** A gap notice: {@code from..to} (inclusive) will never arrive. */
    synchronized void gap(long from, long to, String reason) {
        if (from != next) {
            violation("gap " + from + ".." + to + " (" + reason + ") does not start where delivery stopped (" + next
                    + ")");
        }
        mark(gaps, Math.max(from, start), to);
        next = Math.max(next, to + 1);
    }

    /**
     * A {@code resync} close naming {@code offset} as where to subscribe again. An offset below {@link #next()} is a
     * violation (it names offsets already received). One above it is counted ({@link #resyncsAhead()}): the relaying
     * node had taken those events for this subscriber but never sent them (they were still queued for it when it was
     * closed), so the subscriber resumes from its own cursor, not from the named offset, or it would miss them
     * without a notice.
     */
    synchronized void resync(long offset) {
        resyncs++;
        if (offset < next) {
            violation("resync named offset " + offset + " but the subscriber had received everything before " + next);
        } else if (offset > next) {
            resyncsAhead++;
            resyncAheadEvents += offset - next;
        }
    }

    /** Resync closes that named an offset past what the subscriber had received. */
    synchronized int resyncsAhead() {
        return resyncsAhead;
    }

    /** How many offsets those closes skipped in all (what a client trusting them would have missed silently). */
    synchronized long resyncAheadEvents() {
        return resyncAheadEvents;
    }

    /** A resubscribe from {@code next} was refused as too old; the oldest offset held is {@code oldest}. */
    synchronized void tooOld(long oldest) {
        if (oldest > next) {
            mark(tooOld, next, oldest - 1);
            next = oldest;
        }
    }

    synchronized void violation(String what) {
        if (violations.size() < 20) {
            violations.add(name + ": " + what);
        }
    }

    synchronized List<String> violations() {
        return List.copyOf(violations);
    }

    synchronized int resyncs() {
        return resyncs;
    }

    /** How the published offsets {@code from..to} (inclusive) were accounted for. */
    synchronized Account account(long from, long to) {
        long published = Math.max(0, to - from + 1);
        return new Account(published, count(delivered, from, to), count(gaps, from, to), count(tooOld, from, to));
    }

    private void mark(BitSet set, long from, long to) {
        for (long o = from; o <= to; o++) {
            int i = index(o);
            if (delivered.get(i) || (set != gaps && gaps.get(i)) || (set != tooOld && tooOld.get(i)) || set.get(i)) {
                violation("offset " + o + " announced lost after it was accounted for");
            }
            set.set(i);
        }
    }

    private long count(BitSet set, long from, long to) {
        if (to < start) {
            return 0;
        }
        int a = index(Math.max(from, start));
        int b = index(to) + 1;
        return set.get(a, b).cardinality();
    }

    private int index(long offset) {
        long i = offset - start;
        if (i < 0 || i > Integer.MAX_VALUE - 1) {
            throw new IllegalArgumentException("offset " + offset + " is outside what " + name + " is owed (from "
                    + start + ")");
        }
        return (int) i;
    }
}
