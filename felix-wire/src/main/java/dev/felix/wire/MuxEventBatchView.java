package dev.felix.wire;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A multiplexed event batch ({@code 0x8024}, {@link BinaryMuxEventBatch}) read in place: {@link #wrap} checks the
 * whole layout exactly as {@link WireCodec#decodePayload} does (same errors, same messages) but copies no payload;
 * it records where each payload lies in the buffer. A reader that can use the bytes where they are (the SDK's
 * {@code EventViewHandler}) reads them straight from the received frame; {@link #copyPayloads()} gives the copies
 * the other readers need, made once per frame whatever the number of channels it names.
 *
 * <p>A flyweight in the manner of Agrona's: one instance per reading thread, wrapped around frame after frame, so
 * a steady stream of frames allocates nothing here once its arrays have grown to the largest batch seen.
 *
 * <p><b>Threads and buffers.</b> Not thread-safe. It keeps a reference to the buffer given to {@link #wrap} and
 * does not own it: what it reports is valid only until that buffer's owner releases or reuses it, and until the
 * next {@code wrap}.
 */
public final class MuxEventBatchView {

    /** Events whose positions a view keeps room for between batches (two {@code int[]} of this size). */
    static final int KEPT_EVENTS = 4096;

    private ByteBuffer buffer;
    private int channelCount;
    private int[] channels = new int[4];
    private long baseOffset;
    private int eventCount;
    /** Absolute index in {@link #buffer} of each payload's first byte. */
    private int[] starts = new int[16];
    private int[] lengths = new int[16];

    /**
     * Reads {@code payload} (the frame's payload, between its position and limit) as a mux event batch.
     *
     * @throws WireException as {@link WireCodec#decodePayload} would for flags {@code 0x8024}; the view then
     *                       reports nothing of the buffer
     */
    public void wrap(ByteBuffer payload) throws WireException {
        buffer = null;
        try {
            BinaryCodec.readMuxEventBatch(payload, this);
        } catch (WireException e) {
            channelCount = 0;
            baseOffset = 0;
            eventCount = 0;
            throw e;
        }
        buffer = payload;
    }

    /** The buffer the payloads lie in (as given to {@link #wrap}). */
    public ByteBuffer buffer() {
        return buffer;
    }

    /** How many channels the batch names (at least 1). */
    public int channelCount() {
        return channelCount;
    }

    /** The {@code i}-th channel the batch is for. */
    public int channel(int i) {
        return channels[java.util.Objects.checkIndex(i, channelCount)];
    }

    /** Offset of the first event. */
    public long baseOffset() {
        return baseOffset;
    }

    /** How many events the batch holds. */
    public int eventCount() {
        return eventCount;
    }

    /** Absolute index in {@link #buffer()} of the {@code i}-th payload's first byte. */
    public int payloadStart(int i) {
        return starts[java.util.Objects.checkIndex(i, eventCount)];
    }

    /** Length in bytes of the {@code i}-th payload. */
    public int payloadLength(int i) {
        return lengths[java.util.Objects.checkIndex(i, eventCount)];
    }

    /** Copies of every payload, in offset order (what a reader that keeps the bytes needs). */
    public List<byte[]> copyPayloads() {
        List<byte[]> out = new ArrayList<>(eventCount);
        for (int i = 0; i < eventCount; i++) {
            out.add(Utf8.copy(buffer, starts[i], lengths[i]));
        }
        return out;
    }

    /** The batch as a value, payloads copied. */
    public BinaryMuxEventBatch toBatch() {
        return new BinaryMuxEventBatch(Arrays.copyOf(channels, channelCount), baseOffset, copyPayloads());
    }

    // ------------------------------------------------------------------ filled by BinaryCodec while it checks

    void channels(int n) {
        if (channels.length < n) {
            channels = new int[Math.max(n, channels.length * 2)];
        }
        channelCount = n;
    }

    void channel(int i, int channel) {
        channels[i] = channel;
    }

    void baseOffset(long offset) {
        baseOffset = offset;
    }

    /**
     * Room for {@code n} payloads, already checked against the bytes that remain (4 bytes each at least). Arrays
     * grown past {@value #KEPT_EVENTS} for one huge batch are let go at the next ordinary one, so a session does not
     * keep them for its lifetime.
     */
    void events(int n) {
        if (starts.length < n) {
            int size = Math.max(n, starts.length * 2);
            starts = new int[size];
            lengths = new int[size];
        } else if (starts.length > KEPT_EVENTS && n <= KEPT_EVENTS) {
            starts = new int[KEPT_EVENTS];
            lengths = new int[KEPT_EVENTS];
        }
        eventCount = 0;
    }

    void event(int start, int length) {
        starts[eventCount] = start;
        lengths[eventCount] = length;
        eventCount++;
    }
}
