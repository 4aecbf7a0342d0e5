package dev.felix.core.stream;

/**
 * The payloads of a publish held in memory that must be given back (a transport's pooled, reference-counted buffer),
 * instead of one heap array per payload: so a broker that receives a batch over the network neither allocates nor
 * leaves garbage per message.
 *
 * <p><b>Layout.</b> The events lie back to back in one region, each as a four-byte big-endian length followed by its
 * bytes: the layout of the event list that ends every Felix publish and delivery frame, so an encoder copies a whole
 * run of events in one move. A position is a byte index into the region; event {@code i} starts where event
 * {@code i - 1} ends.
 *
 * <p><b>References.</b> A new instance holds one reference, its creator's. Whoever keeps the memory beyond the call
 * that handed it over takes one with {@link #retain()} and gives it back with {@link #release()}; the last release
 * returns the memory, and nothing may read it after that. In a shard the holders are: the {@link PublishRequest}
 * until its writer takes it; then the {@link EventBatch} built from it, whose reference the shard's ring keeps until
 * it evicts the batch; the live fanout while any of its shares is outstanding; and every subscriber queue a replay of
 * it sits in (see {@link EventBatch}).
 *
 * <p><b>Threads.</b> The reference count is thread-safe; reading is safe from any thread that holds a reference.
 * felix-core sees only this class; the transport implements it over its own buffers (felix-core stays free of Netty).
 */
public abstract class LentPayloads {

    /** Bytes of one event's length prefix. */
    public static final int LENGTH_PREFIX = 4;

    /** The length of the event whose prefix starts at {@code position}. */
    public abstract int lengthAt(int position);

    /** Copies {@code length} bytes from {@code position} into {@code dst} at {@code dstOffset}. */
    public abstract void copy(int position, byte[] dst, int dstOffset, int length);

    /**
     * Copies {@code length} bytes from {@code position} into {@code dst} at its position, advancing it by
     * {@code length} ({@code dst} has that much room).
     */
    public abstract void copy(int position, java.nio.ByteBuffer dst, int length);

    /** Takes one more reference. */
    public abstract void retain();

    /** Gives one reference back; the last returns the memory. */
    public abstract void release();

    /** References outstanding (0 once the memory was returned); for checks and tests. */
    public abstract int references();

    /**
     * One region holding these events followed by those of {@code others}, in order, which takes over the reference
     * of this instance and of each of {@code others} (they are not released by the caller). Writer only: a shard's
     * writer merges consecutive publishes into one batch with it.
     */
    public abstract LentPayloads followedBy(LentPayloads[] others);

    /**
     * The payload of the event at {@code position} as a new heap array: a copy, for readers that need an array (a
     * JSON encoder, a relay, an embedded consumer). Its caller must hold a reference.
     */
    public final byte[] payloadAt(int position) {
        int length = lengthAt(position);
        byte[] out = new byte[length];
        copy(position + LENGTH_PREFIX, out, 0, length);
        return out;
    }
}
