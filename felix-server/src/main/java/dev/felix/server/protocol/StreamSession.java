package dev.felix.server.protocol;

import dev.felix.core.ErrorCode;
import dev.felix.core.FelixError;
import dev.felix.transport.StreamEnds;
import dev.felix.transport.StreamWrites;
import dev.felix.wire.BinaryPublishAck;
import dev.felix.wire.FrameFlags;
import dev.felix.wire.Message;
import dev.felix.wire.WireCodec;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.quic.QuicStreamChannel;
import io.netty.handler.codec.quic.QuicStreamType;

/**
 * What the handlers of one client-opened stream share: the stream, its connection, who it is authenticated
 * as, the capabilities negotiated, its {@link AckWriter}, and how to answer or end it.
 *
 * <p><b>Threads and buffers.</b> Event-loop confined (the stream's), like every handler that uses it. Every
 * reply it writes is a frame encoded for that write and handed to {@link StreamWrites#writeOwned} (which copies it
 * into direct memory); Netty owns and releases it from then, or StreamWrites does if the write strands it.
 */
final class StreamSession {

    final ServerContext context;
    final QuicStreamChannel channel;
    final ConnectionHandler connection;
    final boolean bidirectional;
    /** The tenant this stream acts for; null until {@code auth} succeeded. */
    private String tenant;
    private int negotiated = FrameFlags.ORIGINAL_V1;
    private AckWriter acks;
    private boolean closed;
    /** Another handler (subscription, watch, single-shot reply) owns the stream now. */
    private boolean handedOver;
    /** Who ended the stream and why, when the broker knows before the stream goes (else the handler decides). */
    private dev.felix.server.metrics.Closes.By closedBy;
    private dev.felix.server.metrics.Closes.Reason closeReason;
    /** Frees what the stream handler holds when the session ends early. */
    private final Runnable onClose;

    StreamSession(ServerContext context, QuicStreamChannel channel, ConnectionHandler connection, Runnable onClose) {
        this.context = context;
        this.channel = channel;
        this.connection = connection;
        this.bidirectional = channel.type() == QuicStreamType.BIDIRECTIONAL;
        this.onClose = onClose;
    }

    String tenant() {
        return tenant;
    }

    boolean authenticated() {
        return tenant != null;
    }

    int negotiated() {
        return negotiated;
    }

    AckWriter acks() {
        return acks;
    }

    boolean closed() {
        return closed;
    }

    boolean handedOver() {
        return handedOver;
    }

    /** Whether frames are still to be handled here (not closed, not handed over). */
    boolean serving() {
        return !closed && !handedOver;
    }

    void negotiated(int flags) {
        this.negotiated = flags;
    }

    /** {@code auth} succeeded for {@code tenant}. */
    void authenticated(String tenant) {
        this.tenant = tenant;
        this.acks = new AckWriter(channel, negotiated, context);
    }

    /** A subscription, watch or single-shot reply takes the stream over; frames after this are dropped. */
    void handOver() {
        handedOver = true;
    }

    /** Replies with an error and keeps the stream open (the request was refused, not malformed). */
    void reply(FelixError error, Long requestId) {
        context.metrics.error(error.code());
        if (bidirectional) {
            write(Frames.error(error, requestId, negotiated));
        }
    }

    /** Replies with an error, then ends the stream: it cannot be trusted any more. */
    void fail(ErrorCode code, String message) {
        if (closed) {
            return;
        }
        context.metrics.error(code);
        closedBy(dev.felix.server.metrics.Closes.By.BROKER, context.draining()
                ? dev.felix.server.metrics.Closes.Reason.SHUTTING_DOWN
                : code == ErrorCode.UNAUTHORIZED || code == ErrorCode.FORBIDDEN
                        ? dev.felix.server.metrics.Closes.Reason.AUTH
                        : dev.felix.server.metrics.Closes.Reason.PROTOCOL_ERROR);
        markClosed();
        if (bidirectional && channel.isActive()) {
            Message error = Frames.error(code, message, negotiated);
            if (acks != null) {
                acks.afterPending(ch -> StreamEnds.writeLast(ch, Frames.json(error)));
            } else {
                StreamEnds.writeLast(channel, Frames.json(error));
            }
        } else {
            end(channel);
        }
    }

    /** Records who ends the stream and why; the first account wins. */
    void closedBy(dev.felix.server.metrics.Closes.By by, dev.felix.server.metrics.Closes.Reason reason) {
        if (closedBy == null) {
            closedBy = by;
            closeReason = reason;
        }
    }

    dev.felix.server.metrics.Closes.By closedBy() {
        return closedBy;
    }

    dev.felix.server.metrics.Closes.Reason closeReason() {
        return closeReason;
    }

    /** Ends the stream from our side. */
    void close() {
        markClosed();
        end(channel);
    }

    /** The stream is gone (inactive or failed): nothing more is handled. */
    void markClosed() {
        if (!closed) {
            closed = true;
            onClose.run();
        }
    }

    void write(Message message) {
        writeOwned(Frames.json(message));
    }

    void write(BinaryPublishAck ack) {
        writeOwned(Unpooled.wrappedBuffer(WireCodec.encodeFrame(ack)));
    }

    /** Writes and flushes a frame encoded for this write (so ours alone, as {@link StreamWrites#writeOwned} needs). */
    private void writeOwned(ByteBuf frame) {
        StreamWrites.writeOwned(channel, frame, channel.voidPromise());
        channel.flush();
    }

    /**
     * Ends a stream from our side (FIN after what was written; {@link StreamEnds} says why a FIN is attached
     * to the last reply wherever there is one) and keeps reading, discarding whatever the client still sends,
     * until its side ends too; Netty then closes the stream and QUIC releases it. Closing the channel here
     * instead stops Netty reading it, so the client's FIN is never consumed and the stream, with one of the
     * connection's stream credits, is never released before the connection closes. STOP_SENDING is not used:
     * quiche then discards the client's end unseen, and Netty keeps every such stream until the connection
     * closes.
     */
    static void end(QuicStreamChannel ch) {
        if (ch.type() == QuicStreamType.BIDIRECTIONAL) {
            StreamEnds.finish(ch);
        }
    }
}
