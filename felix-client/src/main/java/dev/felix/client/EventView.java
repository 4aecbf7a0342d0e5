package dev.felix.client;

import java.nio.ByteBuffer;

/**
 * One delivered event, read where it arrived: what an {@link EventViewHandler} is handed. The payload is a
 * read-only view of the bytes in the received frame, not a copy; the SDK reuses this object for the next event.
 *
 * <p><b>Lifetime.</b> Valid only while the handler call it was passed to runs. After it returns, the frame's buffer
 * goes back to the pool and this object describes another event. Copy what you keep ({@link #copyPayload()},
 * {@link #toEvent()}, or your own decoding of {@link #payload()}).
 *
 * <p><b>Threads and buffers.</b> Confined to the thread that calls the handler (the connection's I/O thread). It
 * never owns a buffer: the SDK releases the frame after the handler returns.
 */
public final class EventView {

    private StreamRef stream;
    private int shard;
    private long offset;
    private ByteBuffer buffer;
    private int start;
    private int length;

    EventView() {
    }

    /** A view of an event already copied out of its frame (handed to the handler from the receive queue). */
    static EventView of(Event event) {
        EventView v = new EventView();
        byte[] p = event.payload();
        v.set(event.stream(), event.shard(), event.offset(), ByteBuffer.wrap(p).asReadOnlyBuffer(), 0, p.length);
        return v;
    }

    /** Points this view at the next event; {@code buffer} must be read-only. */
    void set(StreamRef stream, int shard, long offset, ByteBuffer buffer, int start, int length) {
        this.stream = stream;
        this.shard = shard;
        this.offset = offset;
        this.buffer = buffer;
        this.start = start;
        this.length = length;
    }

    /** The stream it belongs to. */
    public StreamRef stream() {
        return stream;
    }

    /** The shard within the stream. */
    public int shard() {
        return shard;
    }

    /** Its offset in the shard (-1 if the broker did not send offsets). */
    public long offset() {
        return offset;
    }

    /** Length of the payload in bytes. */
    public int payloadLength() {
        return length;
    }

    /**
     * The payload as a read-only buffer whose position and limit enclose it (absolute reads need
     * {@code payload().position()} added). Each call resets position and limit of the same buffer; valid only
     * during the handler call.
     */
    public ByteBuffer payload() {
        buffer.limit(start + length); // limit first: it may lie below the position a previous event left
        buffer.position(start);
        return buffer;
    }

    /** The payload copied into a new array, which the caller may keep. */
    public byte[] copyPayload() {
        byte[] out = new byte[length];
        buffer.get(start, out, 0, length);
        return out;
    }

    /** The event copied into an {@link Event}, which the caller may keep. */
    public Event toEvent() {
        return new Event(stream, shard, offset, copyPayload());
    }

    @Override
    public String toString() {
        return "EventView[" + stream + "/" + shard + "@" + offset + ", " + length + " bytes]";
    }
}
