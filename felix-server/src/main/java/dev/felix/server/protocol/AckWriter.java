package dev.felix.server.protocol;

import dev.felix.core.FelixError;
import dev.felix.core.stream.PublishListener;
import dev.felix.transport.StreamWrites;
import dev.felix.wire.BinaryPayload;
import dev.felix.wire.BinaryPublishAck;
import dev.felix.wire.BinaryPublishResult;
import dev.felix.wire.Capabilities;
import dev.felix.wire.FrameFlags;
import dev.felix.wire.Message;
import dev.felix.wire.WireCodec;
import dev.felix.wire.WirePayload;
import dev.felix.transport.FrameBatch;
import dev.felix.transport.StreamEnds;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.quic.QuicStreamChannel;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * Writes publish acknowledgements back on the stream the publishes came from.
 *
 * <p><b>Threads and buffers.</b> Completions arrive on any thread (a shard writer, or whichever completes a commit); they only
 * queue the reply and schedule a flush. Encoding and writing run on the stream's event loop. The replies of one flush
 * are encoded into one pooled direct buffer ({@link FrameBatch}; another once it holds 64 KiB) handed to
 * {@code write}; from then on Netty owns and releases it.
 *
 * <p>Shard writers complete publishes on their own threads; acknowledgements are queued here and one
 * task per burst writes them all on the stream's event loop and flushes once. A writer running inline in this
 * stream's read (the default for small fanouts) completes them on the event loop itself: the stream's handler then
 * writes them as the read completes ({@link #flushPending}, see {@link ReadBurst}), so they leave in the datagram that
 * acknowledges the read instead of one of their own; the task finds nothing left. The reply encoding
 * matches the request ({@link Reply}): a routed binary publish gets a binary publish result, an upstream
 * binary acked batch a binary ack, a JSON publish {@code publish_ok}/{@code publish_error}. Where the binary
 * form cannot carry the answer (an error with a {@code leader}, an over-long text; any error to an upstream
 * binary ack when the client reads codes) it is {@code publish_error}: the client matches both by request id.
 */
final class AckWriter {

    /** How a publish is answered: the encoding of its request. */
    enum Reply {
        /** JSON {@code publish} / {@code publish_batch}: {@code publish_ok} / {@code publish_error}. */
        JSON,
        /** Upstream binary acked batch {@code 0x0009}: binary ack {@code 0x0010} (no offsets, no code). */
        ACK,
        /** Routed binary publish {@code 0x0029}: publish result {@code 0x0030} (offsets, shard, code). */
        RESULT
    }

    private final QuicStreamChannel channel;
    private final int negotiated;
    private final ServerContext context;
    private final ConcurrentLinkedQueue<WirePayload> pending = new ConcurrentLinkedQueue<>();
    /** When the pending flush was scheduled, in watch frames written (issue 12 item 4). */
    private final FlushMark flushMark = new FlushMark();
    /** The acks of one flush, merged into one buffer; event loop only. */
    private final FrameBatch merged;
    /**
     * Replies owed and not yet written: counted when a listener is handed out (or a refusal queued),
     * uncounted only by {@link #flush} as it writes the reply. So a flush that drains the queue and
     * then reads zero knows no reply can still come, and may attach the FIN to the last one.
     */
    private final AtomicInteger outstanding = new AtomicInteger();
    /** Runs once nothing is outstanding or queued; event loop only. */
    private Runnable onIdle;
    /** Whether our side of the stream ends when {@link #onIdle} runs; event loop only. */
    private BooleanSupplier endStream = () -> false;

    AckWriter(QuicStreamChannel channel, int negotiated, ServerContext context) {
        this.channel = channel;
        this.negotiated = negotiated;
        this.context = context;
        this.merged = new FrameBatch(channel);
    }

    /** A listener that acknowledges request {@code requestId} when the shard accepts it. */
    PublishListener listener(long requestId, Reply encoding) {
        outstanding.incrementAndGet();
        long received = System.nanoTime();
        return new PublishListener() {
            @Override
            public void accepted(int shard, long firstOffset, int count) {
                context.metrics.publishOk.increment();
                context.metrics.publishAckLatency.record(System.nanoTime() - received,
                        java.util.concurrent.TimeUnit.NANOSECONDS);
                completed(switch (encoding) {
                    case RESULT -> BinaryPublishResult.ok(requestId, firstOffset, count, shard);
                    case ACK -> BinaryPublishAck.ok(requestId);
                    case JSON -> ok(requestId, shard, firstOffset, count);
                });
            }

            @Override
            public void failed(FelixError error) {
                context.metrics.publishFailed.increment();
                context.metrics.error(error.code());
                completed(reply(requestId, encoding, error));
            }
        };
    }

    /** The last reply queued by {@link #inOrder}; replies are written in request order. */
    private java.util.concurrent.CompletableFuture<?> lastInOrder = java.util.concurrent.CompletableFuture.completedFuture(null);

    /**
     * A reply that completes later (a cache or admin answer), written after every reply queued before it
     * by this method — requests on one stream are answered in order — and owed like an acknowledgement, so
     * the stream is not finished before it is written. Event loop only. Returns when it was written.
     */
    java.util.concurrent.CompletableFuture<Void> inOrder(java.util.concurrent.CompletableFuture<? extends WirePayload> reply) {
        outstanding.incrementAndGet();
        java.util.concurrent.CompletableFuture<WirePayload> ordered = lastInOrder.handle((x, e) -> null)
                .thenCompose(x -> reply.handle((answer, error) -> answer != null ? (WirePayload) answer
                        : new Message.ErrorMessage("internal error: " + error, null, null)));
        lastInOrder = ordered;
        return ordered.thenAccept(this::completed);
    }

    /** Queues the ack of a completed publish (still counted in {@link #outstanding} until written). */
    private void completed(WirePayload ack) {
        pending.add(ack);
        scheduleFlush();
    }

    /**
     * Once every listener handed out has completed and its ack is written (now, if that is already
     * so), ends our side of the stream if {@code endStream} still says so — the FIN travels with the
     * last ack (see {@link StreamEnds}) — and then runs {@code then}. Event loop only.
     */
    void finishWhenIdle(BooleanSupplier endStream, Runnable then) {
        this.endStream = endStream;
        onIdle = then;
        flush();
    }

    /** The negative acknowledgement for a request refused before it reached a shard. */
    void refuse(long requestId, Reply encoding, FelixError error) {
        context.metrics.publishFailed.increment();
        context.metrics.error(error.code());
        enqueue(reply(requestId, encoding, error));
    }

    private WirePayload reply(long requestId, Reply encoding, FelixError error) {
        // A publish result carries the code but not a not_leader's leader (which a client that negotiated
        // CLUSTER follows), nor more than 64 KiB of text: those go as JSON publish_error.
        if (encoding == Reply.RESULT && Frames.leader(error, negotiated) == null
                && BinaryPublishResult.canCarry(error.code().code(), error.message())) {
            return BinaryPublishResult.error(requestId, error.code().code(), error.message());
        }
        // An upstream binary ack has no room for the code (or the leader): a client that negotiated error codes
        // gets the JSON publish_error even for a binary publish, so it can act on the code.
        if (encoding == Reply.ACK && !Capabilities.has(negotiated, Capabilities.ERROR_CODES)) {
            return BinaryPublishAck.error(requestId, error.message());
        }
        String code = Capabilities.has(negotiated, Capabilities.ERROR_CODES) ? error.code().code() : null;
        return new Message.PublishError(requestId, error.message(), code, Frames.leader(error, negotiated));
    }

    private Message ok(long requestId, int shard, long firstOffset, int count) {
        boolean offsets = Capabilities.has(negotiated, FrameFlags.EVENT_BATCH_OFFSETS);
        boolean shards = Capabilities.has(negotiated, Capabilities.SHARDS);
        return new Message.PublishOk(requestId, offsets ? firstOffset : null, offsets ? count : null,
                shards ? shard : null);
    }

    private void enqueue(WirePayload ack) {
        outstanding.incrementAndGet();
        pending.add(ack);
        scheduleFlush();
    }

    /** Schedules one flush (at most one pending), marking when. Any thread, after queuing a reply. */
    private void scheduleFlush() {
        if (flushMark.schedule(context.metrics.watchFramesWritten())) {
            channel.eventLoop().execute(this::flush);
        }
    }

    /** Writes the replies queued so far, now, if there are any. Event loop only. */
    void flushPending() {
        if (!pending.isEmpty()) {
            flush();
        }
    }

    private void flush() {
        long readyAt = flushMark.take(); // before the queue: a reply queued after this schedules the next flush
        WirePayload ack;
        boolean any = false;
        while ((ack = pending.poll()) != null) {
            outstanding.decrementAndGet();
            if (!channel.isActive()) {
                continue; // the publisher went away; nobody to tell
            }
            append(ack);
            any = true;
        }
        boolean idle = onIdle != null && outstanding.get() == 0 && pending.isEmpty();
        if (any) {
            if (readyAt != FlushMark.NOT_SCHEDULED) { // else its replies were queued after the last flush and not yet scheduled
                context.metrics.replyWaitWatchFrames.record(Math.max(0, context.metrics.watchFramesWritten() - readyAt));
            }
            ByteBuf last = merged.take(); // so that the FIN, when the stream ends now, travels with the last acks
            if (idle && endStream.getAsBoolean()) {
                StreamEnds.writeLast(channel, last);
            } else {
                StreamWrites.writeOwned(channel, last, channel.voidPromise());
                channel.flush();
            }
        }
        if (idle) {
            Runnable r = onIdle;
            onIdle = null;
            if (endStream.getAsBoolean()) {
                StreamEnds.finish(channel); // nothing left to carry the FIN (a no-op when it went above)
            }
            r.run();
        }
    }

    /**
     * Encodes {@code ack} into the acks of this flush: one buffer for the burst (a QUIC stream sends a packet per
     * buffer written), binary acks encoded in place.
     */
    private void append(WirePayload ack) {
        if (ack instanceof BinaryPayload binary) {
            int len = WireCodec.frameLength(binary);
            ByteBuf room = merged.room(len);
            WireCodec.encodeFrame(binary, room.nioBuffer(room.writerIndex(), len));
            room.writerIndex(room.writerIndex() + len);
        } else {
            byte[] frame = WireCodec.encodeFrame(ack);
            merged.room(frame.length).writeBytes(frame);
        }
    }

    /** Runs {@code action} on the stream's event loop once queued acks are written. */
    void afterPending(Consumer<QuicStreamChannel> action) {
        channel.eventLoop().execute(() -> {
            flush();
            action.accept(channel);
        });
    }
}
