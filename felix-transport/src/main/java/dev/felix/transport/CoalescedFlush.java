package dev.felix.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import java.util.concurrent.RejectedExecutionException;

/**
 * One write and one flush of a channel for the small frames queued on it during the current batch of event-loop
 * tasks. A QUIC stream sends at least one packet per buffer written to it, so replies written one by one (a
 * thousand subscriptions confirmed, a thousand credit grants) would cost a packet each, and a burst of them would
 * wait for the congestion window a few packets per round trip; {@link #write(ByteBuf) queued} here, they are copied
 * into one buffer ({@link FrameBatch}) that is written and flushed by one task queued behind them, so they leave in
 * as few full packets as they fill. A lone frame is sent by the very next task: no timer, no added latency at low rates.
 *
 * <p>Frames written to the channel directly must not overtake queued ones: call {@link #writePending()} first.
 *
 * <p><b>Threads and buffers.</b> Confined to the channel's event loop (every method must be called there). A
 * queued frame is owned (and released) by this class from the call on; the merged buffer is the channel's once
 * written. Frames still queued when the channel is gone are released by {@link #run()} (the write fails and Netty
 * releases it).
 */
public final class CoalescedFlush implements Runnable {

    private final Channel channel;
    private final FrameBatch pending;
    private boolean scheduled;

    public CoalescedFlush(Channel channel) {
        this.channel = channel;
        this.pending = new FrameBatch(channel);
    }

    /** Queues {@code frame} (released here) to leave with the other frames of this batch of tasks. Event loop only. */
    public void write(ByteBuf frame) {
        pending.add(frame, null);
        request();
    }

    /** Whether frames are queued (not written yet). Event loop only. */
    public boolean hasPending() {
        return !pending.isEmpty();
    }

    /** Writes (without flushing) what {@link #write} queued, so a frame written directly next comes after it. */
    public void writePending() {
        pending.write();
    }

    /** Flushes the channel once the tasks already queued on its event loop have run. Event loop only. */
    public void request() {
        if (!scheduled) {
            scheduled = true;
            try {
                channel.eventLoop().execute(this);
            } catch (RejectedExecutionException e) { // the event loop is shutting down: nothing will be sent
                scheduled = false;
                pending.discard(e);
            }
        }
    }

    @Override
    public void run() {
        scheduled = false;
        writePending();
        channel.flush();
    }
}
