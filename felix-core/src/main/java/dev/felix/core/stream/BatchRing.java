package dev.felix.core.stream;

import java.util.Arrays;

/**
 * The most recent batches of a shard, bounded in events and bytes; oldest evicted first.
 *
 * <p>It serves subscriptions that start in the recent past and subscribers catching up, so they can be
 * fed from memory without touching the log. Offsets in the ring are contiguous: batches are added in
 * offset order without holes.
 *
 * <p><b>Lent payloads.</b> The ring keeps a batch's own lent reference ({@link EventBatch#lent()}): it gives it back
 * when it evicts the batch or is cleared. A reader of a batch it returns must take its own before the writer moves on
 * ({@link EventBatch#retainLent()}). A lent batch kept long ties up the memory it was lent from beyond its own bytes
 * (a block of pooled payloads is reused only once every event in it is let go), so the shard may have the ring copy
 * the payloads of batches kept since before a given time into arrays and give their lent memory back
 * ({@link #settleLent}).
 *
 * <p><b>Single writer:</b> only the shard's writer thread may call any method.
 */
final class BatchRing {

    private final int maxEvents;
    private final long maxBytes;
    private EventBatch[] slots = new EventBatch[16];
    private int head;   // index of the oldest batch
    private int size;   // number of batches
    private long events;
    private long bytes;
    /** Batches held whose payloads are lent. */
    private int lentBatches;

    BatchRing(int maxEvents, long maxBytes) {
        this.maxEvents = maxEvents;
        this.maxBytes = maxBytes;
    }

    /** Adds the newest batch, evicting the oldest until the limits hold (the newest always stays). */
    void add(EventBatch batch) {
        if (size > 0 && newest().endOffset() != batch.baseOffset()) {
            throw new IllegalStateException("ring offsets must be contiguous: " + newest() + " then " + batch);
        }
        if (size == slots.length) {
            grow();
        }
        slots[(head + size) & (slots.length - 1)] = batch;
        size++;
        if (batch.lent() != null) {
            lentBatches++;
        }
        events += batch.eventCount();
        bytes += batch.payloadBytes();
        while (size > 1 && (events > maxEvents || bytes > maxBytes)) {
            removeOldest();
        }
    }

    /** Drops everything (the shard lost its memory, was reset or closed), giving back the batches' lent memory. */
    void clear() {
        for (int i = 0; i < size; i++) {
            at(i).releaseLent();
        }
        Arrays.fill(slots, null);
        head = 0;
        size = 0;
        lentBatches = 0;
        events = 0;
        bytes = 0;
    }

    /**
     * Replaces each batch with lent payloads that the shard accepted before {@code cutoffNanos}
     * ({@link System#nanoTime()}) by a copy in arrays ({@link EventBatch#settled()}), and gives back the ring's lent
     * reference; what subscribers hold of the old batch they give back themselves. Offsets, counts and bytes are
     * unchanged. Returns the payload bytes copied.
     */
    long settleLent(long cutoffNanos) {
        long copied = 0;
        for (int i = 0; i < size && lentBatches > 0; i++) {
            EventBatch b = at(i);
            if (b.lent() == null) {
                continue;
            }
            if (b.publishNanos() - cutoffNanos >= 0) {
                break; // accepted in order: the rest are newer still
            }
            slots[(head + i) & (slots.length - 1)] = b.settled();
            lentBatches--;
            copied += b.payloadBytes();
            b.releaseLent();
        }
        return copied;
    }

    /** Batches held whose payloads are lent. */
    int lentBatches() {
        return lentBatches;
    }

    boolean isEmpty() {
        return size == 0;
    }

    /** Offset of the oldest event held, or {@code fallback} when empty. */
    long oldestOffset(long fallback) {
        return size == 0 ? fallback : slots[head].baseOffset();
    }

    long events() {
        return events;
    }

    long bytes() {
        return bytes;
    }

    /**
     * The batch holding {@code offset}, trimmed to start at it; null if the ring does not hold it.
     */
    EventBatch batchFrom(long offset) {
        if (size == 0 || offset < slots[head].baseOffset() || offset >= newest().endOffset()) {
            return null;
        }
        int lo = 0;
        int hi = size - 1;
        while (lo < hi) { // find the last batch whose base <= offset
            int mid = (lo + hi + 1) >>> 1;
            if (at(mid).baseOffset() <= offset) {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        return at(lo).from(offset);
    }

    private EventBatch newest() {
        return at(size - 1);
    }

    private EventBatch at(int i) {
        return slots[(head + i) & (slots.length - 1)];
    }

    private void removeOldest() {
        EventBatch oldest = slots[head];
        slots[head] = null;
        head = (head + 1) & (slots.length - 1);
        size--;
        events -= oldest.eventCount();
        bytes -= oldest.payloadBytes();
        if (oldest.lent() != null) {
            lentBatches--;
        }
        oldest.releaseLent();
    }

    private void grow() {
        EventBatch[] bigger = new EventBatch[slots.length * 2];
        for (int i = 0; i < size; i++) {
            bigger[i] = at(i);
        }
        slots = bigger;
        head = 0;
    }
}
