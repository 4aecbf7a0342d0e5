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
 *
 * <p><b>Shared encodings outside the heap.</b> A transport may instead encode a batch once into memory it must release
 * (pooled direct buffers) and let every subscriber's write share it: {@link #shared(int, Function)}. Those live as
 * long as someone may still write the batch, which the batch counts in <em>shares</em>. Only the instance a shard fans
 * out live is counted ({@code ShardFanout}): it holds one share for each subscriber queue it sits in (and one for a
 * {@code block} subscriber waiting to take it), plus one while the fanout runs. Whoever takes the batch off a queue owns
 * that queue's share and gives it back with {@link #releaseShare()} once written, or dropped; a queue that discards the
 * batch gives it back itself. When the last share is given back, the shared encodings are released. Every other
 * instance (a view, a batch replayed from the ring or read from a log, a relayed one) is not counted:
 * {@link #releaseShare()} does nothing and {@link #shared} returns null, so its writer copies.
 */
public final class EventBatch implements Delivery {

    /** Number of encoding slots (e.g. one wire form without offsets, one with). */
    public static final int ENCODING_SLOTS = 2;

    /**
     * A shared encoding that holds memory outside the heap (for example reference-counted direct buffers): released
     * exactly once, when the batch's last share is given back.
     */
    public interface SharedEncoding {
        void release();
    }

    private static final VarHandle ENCODING =
            MethodHandles.arrayElementVarHandle(Object[].class);
    private static final VarHandle SHARES;

    static {
        try {
            SHARES = MethodHandles.lookup().findVarHandle(EventBatch.class, "shares", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** {@link #shares} of an instance whose shares are not counted. */
    private static final int UNCOUNTED = -1;

    private final int shard;
    private final long baseOffset;
    private final byte[][] payloads;
    private final int from;
    private final int count;
    private final long payloadBytes;
    private final long publishNanos;
    private final Object[] encodings = new Object[ENCODING_SLOTS];
    /**
     * Outstanding shares ({@link #UNCOUNTED} unless this instance is fanned out live; 0 once the last was given back
     * and the shared encodings released). Changed through {@link #SHARES}.
     */
    @SuppressWarnings("unused")
    private volatile int shares = UNCOUNTED;
    /** The shared encodings by slot, created on first use; guarded by {@link #encodings}' monitor. */
    private SharedEncoding[] shared;
    /** {@link #uncounted()}'s instance, made on first use by the shard's writer. */
    private EventBatch uncountedTwin;

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

    /**
     * The shared encoding in {@code slot}, made by {@code encoder} on first use (once, however many threads race), for
     * a caller that holds a share of this batch: it stays valid until that caller gives its share back. Null when this
     * instance's shares are not counted (see the class comment), or when none is outstanding, which only a caller
     * without a share can see: then it copies instead.
     */
    @SuppressWarnings("unchecked")
    public <T extends SharedEncoding> T shared(int slot, Function<EventBatch, T> encoder) {
        if ((int) SHARES.getVolatile(this) <= 0) {
            return null;
        }
        synchronized (encodings) {
            if (shared == null) {
                shared = new SharedEncoding[ENCODING_SLOTS];
            }
            SharedEncoding e = shared[slot];
            if (e == null) {
                e = encoder.apply(this);
                shared[slot] = e;
            }
            return (T) e;
        }
    }

    /**
     * Gives back the share its caller owns (it took this batch off a subscriber queue, and has written or dropped it);
     * the last one releases the shared encodings. Does nothing for an instance whose shares are not counted.
     *
     * @throws IllegalStateException if no share is outstanding (given back twice)
     */
    public void releaseShare() {
        int now;
        do {
            now = (int) SHARES.getVolatile(this);
            if (now == UNCOUNTED) {
                return;
            }
            if (now <= 0) {
                throw new IllegalStateException(this + ": a share given back that was not outstanding");
            }
        } while (!SHARES.compareAndSet(this, now, now - 1));
        if (now == 1) {
            releaseShared();
        }
    }

    /** Starts counting shares, with one for the caller (the fanout, which gives it back when done). Writer only. */
    void countShares() {
        if (!SHARES.compareAndSet(this, UNCOUNTED, 1)) {
            throw new IllegalStateException(this + " is fanned out live twice");
        }
    }

    /** One more share, for a queue (or a waiting subscriber) the batch goes to; its giver holds one already. */
    void takeShare() {
        int now;
        do {
            now = (int) SHARES.getVolatile(this);
            if (now <= 0) {
                throw new IllegalStateException(this + ": a share taken with none outstanding");
            }
        } while (!SHARES.compareAndSet(this, now, now + 1));
    }

    /** Whether this instance's shares are counted (it is fanned out live). */
    boolean sharesCounted() {
        return (int) SHARES.getVolatile(this) != UNCOUNTED;
    }

    /** Outstanding shares, for tests; -1 when not counted. */
    int shares() {
        return (int) SHARES.getVolatile(this);
    }

    /**
     * An instance over the same events whose shares are not counted, for a replay of the live instance: the same one
     * every time, so replaying subscribers still share its heap encodings and, on one multiplexed stream, its frames.
     * Writer only.
     */
    EventBatch uncounted() {
        EventBatch twin = uncountedTwin;
        if (twin == null) {
            twin = new EventBatch(shard, baseOffset, payloads, from, count, payloadBytes, publishNanos);
            uncountedTwin = twin;
        }
        return twin;
    }

    private void releaseShared() {
        SharedEncoding[] release;
        synchronized (encodings) {
            release = shared;
            shared = null;
        }
        if (release != null) {
            for (SharedEncoding e : release) {
                if (e != null) {
                    e.release();
                }
            }
        }
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
