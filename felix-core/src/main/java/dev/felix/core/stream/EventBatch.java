package dev.felix.core.stream;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
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
 *
 * <p><b>Lent payloads.</b> A batch published over the network may hold its payloads in {@link LentPayloads} (pooled
 * memory of the transport) instead of arrays. That memory is counted apart from the shares: the batch's own reference
 * is kept by the shard's ring until it evicts the batch; the live instance holds one more while any of its shares is
 * outstanding; and every queue a replay of it is offered to holds one, which its taker gives back with the same
 * {@link #releaseShare()} as a live batch's share (for an instance whose shares are not counted, that call gives back
 * the lent reference its queue held). So a taker reads a lent batch exactly as long as it may read any batch: until it
 * gives back what it took. {@link #payload(int)} and {@link #payloads()} copy lent payloads into new arrays; an encoder
 * on the hot path writes the region itself ({@link #lent()}, {@link #lentPosition()}, {@link #lentLength()}).
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
    /** The payloads as arrays, or null when they are {@link #lent}. */
    private final byte[][] payloads;
    /** The payloads in lent memory, or null when they are arrays. */
    private final LentPayloads lent;
    /** Index in {@link #payloads} of the first event, or (lent) byte position of its length prefix. */
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
        this(shard, baseOffset, payloads, null, 0, payloads.length, sum(payloads, 0, payloads.length), publishNanos);
    }

    /**
     * A batch of {@code count} events lent in {@code lent} from its position 0, which takes over the caller's
     * reference (the ring keeps it, see the class comment). Writer only.
     */
    static EventBatch lent(int shard, long baseOffset, LentPayloads lent, int count, long payloadBytes,
            long publishNanos) {
        return new EventBatch(shard, baseOffset, null, lent, 0, count, payloadBytes, publishNanos);
    }

    private EventBatch(int shard, long baseOffset, byte[][] payloads, LentPayloads lent, int from, int count,
            long payloadBytes, long publishNanos) {
        if (count <= 0) {
            throw new IllegalArgumentException("an event batch holds at least one event");
        }
        this.shard = shard;
        this.baseOffset = baseOffset;
        this.payloads = payloads;
        this.lent = lent;
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

    /**
     * The payload of the {@code i}-th event of this batch. Do not modify it. A lent payload is copied into a new array
     * (its caller must still hold what it took, see the class comment).
     */
    public byte[] payload(int i) {
        if (i < 0 || i >= count) {
            throw new IndexOutOfBoundsException(i);
        }
        if (lent != null) {
            return lent.payloadAt(positionOf(i));
        }
        return payloads[from + i];
    }

    /**
     * The backing array and range, for encoders that write straight from it. Do not modify it.
     *
     * @throws IllegalStateException if the payloads are lent ({@link #lent()})
     */
    public byte[][] payloadArray() {
        if (lent != null) {
            throw new IllegalStateException(this + " holds lent payloads, not arrays");
        }
        return payloads;
    }

    /** Index in {@link #payloadArray()} of this batch's first event. */
    public int arrayFrom() {
        return from;
    }

    /** The lent memory holding this batch's events, or null when they are arrays. */
    public LentPayloads lent() {
        return lent;
    }

    /** Byte position in {@link #lent()} of this batch's first event (its length prefix). */
    public int lentPosition() {
        return from;
    }

    /** Bytes of this batch's events in {@link #lent()}: every payload behind its length prefix. */
    public int lentLength() {
        return (int) (payloadBytes + (long) LentPayloads.LENGTH_PREFIX * count);
    }

    /** The payloads as an unmodifiable list (no copy of the bytes, unless they are lent). */
    public List<byte[]> payloads() {
        if (lent != null) {
            return List.of(copiesOfLent());
        }
        return Collections.unmodifiableList(Arrays.asList(payloads).subList(from, from + count));
    }

    private byte[][] copiesOfLent() {
        byte[][] copies = new byte[count][];
        int at = from;
        for (int i = 0; i < count; i++) {
            copies[i] = lent.payloadAt(at);
            at += LentPayloads.LENGTH_PREFIX + copies[i].length;
        }
        return copies;
    }

    /**
     * This batch with its payloads copied into arrays (this batch when they are arrays already), for a holder that
     * should no longer keep the lent memory ({@link BatchRing#settleLent}); the caller still gives back its own lent
     * reference. The copy has the same offsets and acceptance time; its shares are not counted.
     */
    EventBatch settled() {
        return lent == null ? this : new EventBatch(shard, baseOffset, copiesOfLent(), publishNanos);
    }

    /** Byte position in {@link #lent} of the {@code i}-th event of this batch. */
    private int positionOf(int i) {
        int at = from;
        for (int k = 0; k < i; k++) {
            at += LentPayloads.LENGTH_PREFIX + lent.lengthAt(at);
        }
        return at;
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
        if (lent != null) {
            int at = positionOf(skip);
            long skipped = at - from - (long) LentPayloads.LENGTH_PREFIX * skip;
            return new EventBatch(shard, offset, null, lent, at, count - skip, payloadBytes - skipped, publishNanos);
        }
        return new EventBatch(shard, offset, payloads, null, from + skip, count - skip,
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
        if (lent != null) {
            int end = positionOf(n);
            return new EventBatch(shard, baseOffset, null, lent, from, n,
                    end - from - (long) LentPayloads.LENGTH_PREFIX * n, publishNanos);
        }
        return new EventBatch(shard, baseOffset, payloads, null, from, n, sum(payloads, from, n), publishNanos);
    }

    /**
     * This batch cut into consecutive parts (views, no copy; this batch itself when it fits whole), each of as many
     * events as fit {@code maxBytes} with every event counted as its payload plus {@code perEvent} bytes (a frame's
     * length prefix), and at least one event. Reads each lent event's length once: cutting with {@link #from} and
     * {@link #first} walks a lent batch from its first event for every part.
     */
    public List<EventBatch> split(long maxBytes, int perEvent) {
        List<EventBatch> parts = new ArrayList<>(2);
        int start = 0; // the current part's first event, its position (lent) and its payload bytes so far
        int startAt = from;
        long bytes = 0;
        int at = from;
        for (int i = 0; i < count; i++) {
            int length = lent != null ? lent.lengthAt(at) : payloads[from + i].length;
            if (i > start && bytes + length + (long) perEvent * (i - start + 1) > maxBytes) {
                parts.add(part(start, i - start, startAt, bytes));
                start = i;
                startAt = lent != null ? at : from + i;
                bytes = 0;
            }
            bytes += length;
            if (lent != null) {
                at += LentPayloads.LENGTH_PREFIX + length;
            }
        }
        parts.add(part(start, count - start, startAt, bytes));
        return parts;
    }

    /** The view of {@code n} events from the {@code skip}-th, which lies at {@code at} and carries {@code bytes}. */
    private EventBatch part(int skip, int n, int at, long bytes) {
        if (skip == 0 && n == count) {
            return this;
        }
        return new EventBatch(shard, baseOffset + skip, payloads, lent, at, n, bytes, publishNanos);
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
     * the last one releases the shared encodings and the live fanout's lent reference. For an instance whose shares
     * are not counted, it gives back the lent reference the queue held ({@link #retainLent()}), and does nothing when
     * the payloads are arrays.
     *
     * @throws IllegalStateException if no share is outstanding (given back twice)
     */
    public void releaseShare() {
        int now;
        do {
            now = (int) SHARES.getVolatile(this);
            if (now == UNCOUNTED) {
                releaseLent();
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

    /**
     * Starts counting shares, with one for the caller (the fanout, which gives it back when done); lent payloads get
     * one more reference, held until the last share is given back. Writer only.
     */
    void countShares() {
        if (!SHARES.compareAndSet(this, UNCOUNTED, 1)) {
            throw new IllegalStateException(this + " is fanned out live twice");
        }
        retainLent();
    }

    /**
     * One more reference on the lent memory, for a holder beside the ring and the live shares: a subscriber queue a
     * replay goes into (its taker gives it back with {@link #releaseShare()}), or a consumer looking before it takes
     * ({@link SubscriberQueue#peekHeld()}). Nothing for arrays.
     */
    void retainLent() {
        if (lent != null) {
            lent.retain();
        }
    }

    /**
     * Gives back one reference on the lent memory (called on the batch or any view of it): the batch's own, when the
     * ring evicts it or it never became visible; or the hold of {@link Subscription#peekHeld()}. Nothing for arrays.
     */
    public void releaseLent() {
        if (lent != null) {
            lent.release();
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
            twin = new EventBatch(shard, baseOffset, payloads, lent, from, count, payloadBytes, publishNanos);
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
        releaseLent();
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
