package dev.felix.client;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Checks what one subscription of {@link ChurnLeakSoakTest} receives (its streams have one shard): offsets follow
 * each other with no hole that a {@link Gap} did not announce, every payload is intact ({@link SoakPayload}), and
 * each publisher's events arrive in the order it published them. A violation goes to {@code failures}, named
 * after the subscription; the check goes on.
 *
 * <p>Thread-safe: a multiplexed subscription's handler may run on a different handler thread each time.
 */
final class DeliveryCheck implements SubscriptionHandler {

    private final String who;
    private final Consumer<String> failures;
    private final Runnable delivered;
    private long nextOffset = -1;
    private final Map<Integer, Long> lastSeq = new HashMap<>();
    private long events;
    private long gaps;
    private final Map<String, Long> gapReasons = new java.util.TreeMap<>();

    DeliveryCheck(String who, Consumer<String> failures, Runnable delivered) {
        this.who = who;
        this.failures = failures;
        this.delivered = delivered;
    }

    /** An item from {@link Subscription#next}; null (nothing in time) is ignored. */
    void accept(Item item) {
        if (item instanceof Event e) {
            onEvent(e);
        } else if (item instanceof Gap g) {
            onGap(g);
        }
    }

    @Override
    public synchronized void onEvent(Event e) {
        if (nextOffset >= 0 && e.offset() != nextOffset) {
            failures.accept(who + ": offset " + e.offset() + " arrived where " + nextOffset
                    + " was due, with no gap notice");
        }
        nextOffset = e.offset() + 1;
        try {
            SoakPayload.Stamp stamp = SoakPayload.check(e.payload());
            if (stamp != null) {
                Long last = lastSeq.put(stamp.source(), stamp.seq());
                if (last != null && stamp.seq() <= last) {
                    failures.accept(who + ": publisher " + stamp.source() + "'s seq " + stamp.seq() + " at offset "
                            + e.offset() + " after its seq " + last);
                }
            }
        } catch (IllegalStateException bad) {
            failures.accept(who + ": offset " + e.offset() + ": " + bad.getMessage());
        }
        events++;
        delivered.run();
    }

    @Override
    public synchronized void onGap(Gap g) {
        gaps++;
        gapReasons.merge(g.reason(), 1L, Long::sum);
        // An incarnation gap runs to "the end of the earlier numbering": the next offset is unknown.
        nextOffset = g.to() < 0 || g.to() == Long.MAX_VALUE ? -1 : g.to() + 1;
    }

    /**
     * This check as an {@link EventViewHandler}: each event is read where it arrived and copied for the check while
     * the frame is still held, as an application that keeps what it reads would.
     */
    EventViewHandler readingInPlace() {
        return new EventViewHandler() {
            @Override
            public void onEvent(EventView view) {
                DeliveryCheck.this.onEvent(view.toEvent());
            }

            @Override
            public void onGap(Gap gap) {
                DeliveryCheck.this.onGap(gap);
            }
        };
    }

    synchronized long events() {
        return events;
    }

    synchronized long gaps() {
        return gaps;
    }

    /** How many gaps came for each reason. */
    synchronized Map<String, Long> gapReasons() {
        return Map.copyOf(gapReasons);
    }
}
