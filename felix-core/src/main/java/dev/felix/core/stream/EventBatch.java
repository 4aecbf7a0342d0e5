package dev.felix.core.stream;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.function.Function;

/**
 * Consecutive events of one shard: payloads at offsets {@code baseOffset .. baseOffset+count-1}.
 *
 * <p><b>Immutable and shared.</b> One instance is created per batch by the shard's writer and handed
 * to every subscriber; nobody copies or mutates the payload arrays. To encode a batch once whatever
 * the fanout, a transport asks {@link #encoded(int, Function)} for its wire form: the first caller
 * encodes (exactly once, even under a race), every later caller (on any thread) gets the same
 * object. Encodings are plain heap objects owned by the batch and reclaimed with it by the garbage
 * collector.
 */
public final class EventBatch implements Delivery {

    /** Number of encoding slots (e.g. one wire form without offsets, one with). */
    public static final int ENCODING_SLOTS = 2;

    private static final VarHandle ENCODING =
            MethodHandles.arrayElementVarHandle(Object[].class);

    private final int shard;
    private final long baseOffset;
    private final byte[][] payloads;
    private final int from;
    private final int count;
    private final long payloadBytes;
    private final long publishNanos;
    private final Object[] encodings = new Object[ENCODING_SLOTS];

    /**
     * @param payloads     the payloads; ownership passes to the batch (the caller must not modify them)
     * @param publishNanos {@link System#nanoTime()} when the shard accepted the batch (for lag metrics)
     */
    public EventBatch(int shard, long baseOffset, byte[][] payloads, long publishNanos) {
        this(shard, baseOffset, payloads, 0, payloads.length, sum(payloads, 0, payloads.length), publishNanos);
    }

    private EventBatch(int shard, long baseOffset, byte[][] payloads, int from, int count, long payloadBytes,
            long publishNanos) {
        if (count <= 0) {
            throw new IllegalArgumentException("an event batch holds at least one event");
        }
        this.shard = shard;
        this.baseOffset = baseOffset;
        this.payloads = payloads;
        this.from = from;
        this.count = count;
        this.payloadBytes = payloadBytes;
        this.publishNanos = publishNanos;
    }

    public int shard() {
        return shard;
    }

    /** Offset of the first event. */
    public long baseOffset() {
        return baseOffset;
    }

    /** Offset after the last event. */
    public long endOffset() {
        return baseOffset + count;
    }

    /** Offset of the last event. */
    public long lastOffset() {
        return baseOffset + count - 1;
    }

    @Override
    public int eventCount() {
        return count;
    }

    @Override
    public long payloadBytes() {
        return payloadBytes;
    }

    public long publishNanos() {
        return publishNanos;
    }

    /** The payload of the {@code i}-th event of this batch. Do not modify it. */
    public byte[] payload(int i) {
        if (i < 0 || i >= count) {
            throw new IndexOutOfBoundsException(i);
        }
        return payloads[from + i];
    }

    /** The backing array and range, for encoders that write straight from it. Do not modify it. */
    public byte[][] payloadArray() {
        return payloads;
    }

    /** Index in {@link #payloadArray()} of this batch's first event. */
    public int arrayFrom() {
        return from;
    }

    /** The payloads as an unmodifiable list (no copy of the bytes). */
    public List<byte[]> payloads() {
        return Collections.unmodifiableList(Arrays.asList(payloads).subList(from, from + count));
    }

    /** The events of this batch from {@code offset} on (this batch if it starts there). */
    public EventBatch from(long offset) {
        if (offset <= baseOffset) {
            return this;
        }
        if (offset >= endOffset()) {
            throw new IllegalArgumentException("offset " + offset + " is past this batch");
        }
        int skip = (int) (offset - baseOffset);
        return new EventBatch(shard, offset, payloads, from + skip, count - skip,
                sum(payloads, from + skip, count - skip), publishNanos);
    }

    /** The first {@code n} events of this batch (this batch if it holds no more). */
    public EventBatch first(int n) {
        if (n >= count) {
            return this;
        }
        if (n <= 0) {
            throw new IllegalArgumentException("a head of " + n + " events");
        }
        return new EventBatch(shard, baseOffset, payloads, from, n, sum(payloads, from, n), publishNanos);
    }

    /**
     * The wire form in {@code slot}, computed by {@code encoder} on first use. The encoder runs once
     * per slot however many threads race (the others wait for its result); every caller gets the same
     * object. Once encoded, a read is a single acquire load with no lock.
     */
    @SuppressWarnings("unchecked")
    public <T> T encoded(int slot, Function<EventBatch, T> encoder) {
        Object e = ENCODING.getAcquire(encodings, slot);
        if (e == null) {
            synchronized (encodings) { // slow path only: first use of the slot
                e = ENCODING.getAcquire(encodings, slot);
                if (e == null) {
                    e = encoder.apply(this);
                    ENCODING.setRelease(encodings, slot, e);
                }
            }
        }
        return (T) e;
    }

    private static long sum(byte[][] payloads, int from, int count) {
        long total = 0;
        for (int i = from; i < from + count; i++) {
            total += payloads[i].length;
        }
        return total;
    }

    @Override
    public String toString() {
        return "EventBatch[shard=" + shard + ", offsets=" + baseOffset + ".." + lastOffset()
                + ", bytes=" + payloadBytes + "]";
    }
}
