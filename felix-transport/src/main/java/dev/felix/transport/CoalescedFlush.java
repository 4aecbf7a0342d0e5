package dev.felix.transport;

import io.netty.channel.Channel;

/**
 * One flush of a channel for everything written to it during the current batch of event-loop tasks. A QUIC stream
 * sends a packet on every flush, so replies written one by one (a thousand subscriptions confirmed, a thousand
 * credit grants) cost a packet each; written with {@code write} and followed by {@link #request()}, they share the
 * flush of one task queued behind them. A lone write is flushed by the very next task: no timer, no added latency
 * at low rates.
 *
 * <p><b>Threads and buffers.</b> Confined to the channel's event loop ({@link #request()} must be called there).
 * Touches no buffers: what was written belongs to the channel.
 */
public final class CoalescedFlush implements Runnable {

    private final Channel channel;
    private boolean scheduled;

    public CoalescedFlush(Channel channel) {
        this.channel = channel;
    }

    /** Flushes the channel once the tasks already queued on its event loop have run. Event loop only. */
    public void request() {
        if (!scheduled) {
            scheduled = true;
            channel.eventLoop().execute(this);
        }
    }

    @Override
    public void run() {
        scheduled = false;
        channel.flush();
    }
}
