package dev.felix.cluster.peer;

import dev.felix.transport.StreamWrites;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.quic.QuicStreamChannel;

/**
 * One replication conversation: a QUIC stream between two nodes, carrying {@link PeerMessage}s both ways.
 *
 * <p><b>Threads.</b> {@link #send} and {@link #close} may be called from any thread (Netty moves the write
 * onto the stream's event loop); the {@link Listener} is called on that event loop and must not block.
 */
public final class PeerStream {

    /** Told what arrives on a stream. Event loop; must not block. */
    public interface Listener {
        void onMessage(PeerStream stream, PeerMessage message);

        /** The stream ended; {@code cause} is null for a clean end. Called once. */
        void onClosed(PeerStream stream, Throwable cause);

        /**
         * The other side finished its half of the stream (FIN, or it closed the stream): nothing more will arrive.
         * The stream stays open for writing until closed; a listener that expects no more than what arrived
         * closes it.
         */
        default void onInputEnded(PeerStream stream) {
        }

        /** The stream became writable again after {@link PeerStream#isWritable()} said false. */
        default void onWritable(PeerStream stream) {
        }
    }

    private final QuicStreamChannel channel;
    private final String remoteNode;

    PeerStream(QuicStreamChannel channel, String remoteNode) {
        this.channel = channel;
        this.remoteNode = remoteNode;
    }

    /** The node id the other side proved with its certificate. */
    public String remoteNode() {
        return remoteNode;
    }

    /** Sends {@code message}; a failed write closes the stream. Any thread. */
    public void send(PeerMessage message) {
        ChannelPromise written = channel.newPromise();
        written.addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
        StreamWrites.writeOwned(channel, PeerCodec.encode(channel.alloc(), message), written);
        channel.flush();
    }

    /**
     * Whether the stream's outbound buffer has room: a sender that streams many messages (a relay) stops while
     * false and goes on at {@link Listener#onWritable}, so a slow peer never grows this node's memory.
     */
    public boolean isWritable() {
        return channel.isWritable();
    }

    public boolean isOpen() {
        return channel.isActive();
    }

    /**
     * Stops ({@code false}) or resumes reading what the other side sends: a receiver that cannot take more now
     * stops reading, so QUIC flow control holds the sender back instead of this node buffering. Event loop.
     */
    public void setReading(boolean reading) {
        channel.config().setAutoRead(reading);
        if (reading) {
            channel.read();
        }
    }

    /** Closes the stream (the other side sees it end). Any thread; idempotent. */
    public void close() {
        channel.close();
    }

    /** Runs {@code task} on this stream's event loop. */
    public void execute(Runnable task) {
        channel.eventLoop().execute(task);
    }

    @Override
    public String toString() {
        return "PeerStream[" + remoteNode + " " + channel.id().asShortText() + "]";
    }
}
