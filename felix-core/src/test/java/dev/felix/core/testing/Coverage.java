package dev.felix.core.testing;

import dev.felix.core.stream.Delivery;
import dev.felix.core.stream.EventBatch;
import dev.felix.core.stream.GapNotice;
import java.util.ArrayList;
import java.util.List;

/** Checks a consumer's view: events and gaps, in order, accounting for every offset exactly once. */
public final class Coverage {

    private Coverage() {
    }

    /**
     * Walks {@code deliveries} from {@code start}: every batch and every gap must begin exactly at the
     * next unaccounted offset. Returns the first offset after the last item.
     */
    public static long walk(long start, List<Delivery> deliveries) {
        long expected = start;
        for (int i = 0; i < deliveries.size(); i++) {
            Delivery d = deliveries.get(i);
            long from;
            long end;
            if (d instanceof EventBatch b) {
                from = b.baseOffset();
                end = b.endOffset();
            } else {
                GapNotice g = (GapNotice) d;
                if (g.reason() == GapNotice.Reason.INCARNATION) {
                    // Numbered in the shard's earlier life; it must come first, and the events after it
                    // start the new incarnation at the subscription's start offset.
                    if (i != 0) {
                        throw new AssertionError("an incarnation gap must be the first item: " + deliveries);
                    }
                    continue;
                }
                from = g.from();
                end = g.to() + 1;
            }
            if (from != expected) {
                throw new AssertionError("item " + i + " " + d + " starts at " + from + " but offset " + expected
                        + " is next (" + (from < expected ? "duplicate" : "silent hole") + "); all: " + deliveries);
            }
            expected = end;
        }
        return expected;
    }

    /** Each item as {@code batch from..to} or {@code gap from..to reason}, for readable assertions. */
    public static List<String> render(List<? extends Delivery> items) {
        List<String> out = new ArrayList<>();
        for (Delivery d : items) {
            if (d instanceof EventBatch b) {
                out.add("batch " + b.baseOffset() + ".." + b.lastOffset());
            } else {
                GapNotice g = (GapNotice) d;
                out.add("gap " + g.from() + ".." + g.to() + " " + g.reason().wireName());
            }
        }
        return out;
    }
}
