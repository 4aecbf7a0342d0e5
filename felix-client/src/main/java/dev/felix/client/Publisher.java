package dev.felix.client;

import dev.felix.transport.DirectBuffers;
import dev.felix.wire.AckMode;
import dev.felix.wire.BinaryPublishAck;
import dev.felix.wire.BinaryPublishBatch;
import dev.felix.wire.BinaryPublishResult;
import dev.felix.wire.BinaryRoutedPublishBatch;
import dev.felix.wire.Capabilities;
import dev.felix.wire.ErrorCode;
import dev.felix.wire.Message;
import dev.felix.wire.WirePayload;
import io.netty.channel.ChannelFuture;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Publishes to one stream over a dedicated, long-lived QUIC stream, so publishes from one publisher
 * keep their order.
 *
 * <p><b>Threads and buffers.</b> Thread-safe: publishes may come from any thread, are encoded on the caller's
 * thread into a new unpooled frame, and are written in call order per publisher. The publisher owns that frame
 * until it passes it to the stream (released here if the publish is refused first, e.g. over the frame limit or the
 * budget); after {@code write} the channel owns it. Acknowledgements are decoded on the connection's event loop,
 * which completes the futures.
 *
 * <p>Acknowledged publishes ({@code publish*}) complete when the broker accepted them at the stream's
 * durability point and report their offsets. They travel as routed binary batches ({@code 0x0029}, answered
 * by a binary publish result) to a broker that negotiated {@link Capabilities#ROUTED_BINARY_PUBLISH}, else as
 * JSON {@code publish} / {@code publish_batch}; unacknowledged ones ({@code send*}) complete when written
 * to the connection. Both wait when the {@code client_publish_queue} budget is used up
 * ({@link ClientConfig.Builder#publishInflightBytes}). Thread-safe.
 *
 * <p><b>Errors.</b> The asynchronous methods throw only for what the caller can fix before anything is sent: a
 * message over {@code max_frame_bytes}, an empty batch, a full publish queue. Everything else, including a
 * stream the broker already ended, fails the returned future: whether the broker's answer arrived before or
 * after the call is a race the caller cannot see, so both must look the same.
 */
public final class Publisher implements AutoCloseable {

    private final StreamRef stream;
    private final ClientConfig config;
    private final FrameStream frames;
    private final InflightBudget budget;
    private final Map<Long, Pending> pending = new ConcurrentHashMap<>();
    private final AtomicLong requestIds = new AtomicLong();
    private final LongAdder refusedUnacked = new LongAdder();
    private volatile FelixClientException lastError;
    private volatile FelixClientException closedBy;

    private record Pending(CompletableFuture<PublishAck> future, long bytes, int count, long deadlineNanos) {
    }

    private final ClientMetrics metrics;

    /** Where this publisher reports what it learns about the connection (a shutdown announcement). */
    private final java.util.function.Consumer<FelixClientException> notices;

    private Publisher(StreamRef stream, ClientConfig config, FrameStream frames, ClientMetrics metrics,
            java.util.function.Consumer<FelixClientException> notices) {
        this.notices = notices;
        this.stream = stream;
        this.config = config;
        this.frames = frames;
        this.metrics = metrics;
        this.budget = new InflightBudget(config.publishInflightBytes, config.publishInflightEvents, metrics);
    }

    static CompletableFuture<Publisher> open(FelixClient client, StreamRef stream) {
        Publisher[] self = new Publisher[1];
        return FrameStream.open(client.connection(), client.config(), new FrameStream.Listener() {
            @Override
            public void onPayload(WirePayload payload) {
                self[0].onReply(payload);
            }

            @Override
            public void onClosed(FelixClientException cause) {
                self[0].onClosed(cause);
            }
        }).thenApply(fs -> {
            // The listener is only called after ready completes, on the same event loop: self is set first.
            self[0] = new Publisher(stream, client.config(), fs, client.metrics(), client::noticed);
            client.register(self[0]);
            return self[0];
        });
    }

    public StreamRef stream() {
        return stream;
    }

    /** The stream this publisher writes on (tests: its flush counters). */
    FrameStream frames() {
        return frames;
    }

    /** Publishes one event and waits for the acknowledgement. */
    public PublishAck publish(byte[] payload) {
        NonBlockingScope.refuseWait("publish and wait for the acknowledgement (use publishAsync)");
        return await(publishAsync(null, payload));
    }

    /** Publishes a batch (contiguous offsets, one acknowledgement) and waits for it. */
    public PublishAck publishBatch(List<byte[]> payloads) {
        NonBlockingScope.refuseWait("publish and wait for the acknowledgement (use publishBatchAsync)");
        return await(publishBatchAsync(null, payloads));
    }

    /** Publishes one event; the future completes with its offset. */
    public CompletableFuture<PublishAck> publishAsync(byte[] payload) {
        return publishAsync(null, payload);
    }

    /**
     * Publishes one event to the shard chosen by {@code key} (null: round-robin).
     *
     * @throws FelixClientException {@code too_large} at once, sending nothing, if the message does not fit
     *                              {@code max_frame_bytes} ({@link ClientConfig.Builder#maxFrameBytes})
     */
    public CompletableFuture<PublishAck> publishAsync(String key, byte[] payload) {
        checkSize(payload.length);
        long id = requestIds.incrementAndGet();
        return acked(id, payload.length, 1, request(id, AckMode.PER_MESSAGE, key, null, payload, null));
    }

    /** Publishes one event to shard {@code shard} (the cluster SDK routes each shard to its leader). */
    CompletableFuture<PublishAck> publishToShardAsync(int shard, byte[] payload) {
        checkSize(payload.length);
        long id = requestIds.incrementAndGet();
        return acked(id, payload.length, 1, request(id, AckMode.PER_MESSAGE, null, shard, payload, null));
    }

    /** Publishes a batch to the shard chosen by {@code key} (null: round-robin). */
    public CompletableFuture<PublishAck> publishBatchAsync(String key, List<byte[]> payloads) {
        if (payloads.isEmpty()) {
            throw new IllegalArgumentException("a batch holds at least one event");
        }
        checkSize(sum(payloads));
        long id = requestIds.incrementAndGet();
        return acked(id, sum(payloads), payloads.size(), request(id, AckMode.PER_BATCH, key, null, null, payloads));
    }

    /**
     * The request of an acknowledged publish of {@code single} or {@code batch}: a routed binary batch when the
     * broker negotiated it (no base64, offsets in a fixed layout), else the JSON message.
     */
    private WirePayload request(long id, AckMode mode, String key, Integer shard, byte[] single, List<byte[]> batch) {
        if (Capabilities.has(frames.negotiated(), Capabilities.ROUTED_BINARY_PUBLISH)) {
            return new BinaryRoutedPublishBatch(id, mode, key, shard, new BinaryPublishBatch(stream.tenant(),
                    stream.namespace(), stream.stream(), single != null ? List.of(single) : batch));
        }
        return single != null
                ? new Message.Publish(stream.tenant(), stream.namespace(), stream.stream(), single, id, mode, key, shard)
                : new Message.PublishBatch(stream.tenant(), stream.namespace(), stream.stream(), batch, id, mode, key,
                        shard);
    }

    /** Sends one event without waiting for an acknowledgement; completes when written. */
    public CompletableFuture<Void> send(byte[] payload) {
        return sendBatch(List.of(payload));
    }

    /** Sends a batch without an acknowledgement (binary framing); completes when written. */
    public CompletableFuture<Void> sendBatch(List<byte[]> payloads) {
        if (payloads.isEmpty()) {
            throw new IllegalArgumentException("a batch holds at least one event");
        }
        long bytes = sum(payloads);
        checkSize(bytes);
        int count = payloads.size();
        io.netty.buffer.ByteBuf encoded = encodeWithin(
                new BinaryPublishBatch(stream.tenant(), stream.namespace(), stream.stream(), payloads));
        FelixClientException ended = closedBy;
        if (ended != null) {
            encoded.release();
            return CompletableFuture.failedFuture(ended);
        }
        try {
            acquire(bytes, count);
        } catch (RuntimeException e) {
            encoded.release();
            throw e;
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        ChannelFuture written = frames.write(encoded);
        written.addListener(f -> {
            budget.release(bytes, count);
            if (f.isSuccess()) {
                done.complete(null);
            } else {
                done.completeExceptionally(lost(f.cause()));
            }
        });
        return done;
    }

    /** Unacknowledged publishes the broker refused (for example to an unknown stream). */
    public long refusedUnacknowledged() {
        return refusedUnacked.sum();
    }

    /** The last error the broker reported for an unacknowledged publish, or null. */
    public FelixClientException lastError() {
        return lastError;
    }

    /** Counters of the client this publisher belongs to (its publish queue among them). */
    public ClientMetrics metrics() {
        return metrics;
    }

    /** Waits for outstanding acknowledgements (up to the request timeout), then closes the stream. */
    @Override
    public void close() {
        closeBy(System.nanoTime() + InflightBudget.nanos(config.requestTimeout));
    }

    /** Like {@link #close()}, waiting for acknowledgements until {@code deadline} ({@link System#nanoTime()}). */
    void closeBy(long deadline) {
        if (!pending.isEmpty()) {
            NonBlockingScope.refuseWait("close a publisher with unacknowledged publishes");
        }
        for (Pending p : List.copyOf(pending.values())) {
            try {
                p.future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (Exception ignored) {
                // reported to whoever holds the future
            }
        }
        frames.finish();
        frames.close();
    }

    /** Whether this publisher's stream has ended (closed by the application, the broker or a lost connection). */
    boolean closed() {
        return closedBy != null;
    }

    // ------------------------------------------------------------------ internals

    private CompletableFuture<PublishAck> acked(long id, long bytes, int count, WirePayload message) {
        io.netty.buffer.ByteBuf frame = encodeWithin(message);
        FelixClientException ended = closedBy;
        if (ended != null) {
            frame.release();
            return CompletableFuture.failedFuture(ended);
        }
        try {
            acquire(bytes, count);
        } catch (RuntimeException e) {
            frame.release();
            throw e;
        }
        CompletableFuture<PublishAck> future = new CompletableFuture<>();
        pending.put(id, new Pending(future, bytes, count, System.nanoTime() + InflightBudget.nanos(config.requestTimeout)));
        if (closedBy != null) { // ended while this call waited for room; onClosed may have missed this entry
            frame.release();
            complete(id, null, closedBy);
            return future;
        }
        frames.write(frame).addListener(f -> {
            if (!f.isSuccess()) {
                complete(id, null, lost(f.cause()));
            }
        });
        return future;
    }

    /**
     * Refuses, before anything is encoded, payloads that cannot fit a frame: a frame's payload holds at
     * least the message bytes (JSON holds them base64-encoded, a third more).
     */
    private void checkSize(long payloadBytes) {
        if (payloadBytes > config.maxFrameBytes) {
            throw tooLarge(payloadBytes + " bytes of payload");
        }
    }

    /**
     * The frame of {@code message}, refused ({@code too_large}) before anything is allocated when it is larger than
     * max_frame_bytes. A binary publish is encoded straight into a direct buffer (what QUIC hands to quiche as it is;
     * a heap frame would be copied into one first), pooled unless it is large ({@link DirectBuffers}); JSON is encoded
     * as bytes and wrapped.
     */
    private io.netty.buffer.ByteBuf encodeWithin(WirePayload message) {
        if (message instanceof dev.felix.wire.BinaryPayload binary) {
            int length = dev.felix.wire.WireCodec.frameLength(binary);
            checkWithin(length);
            io.netty.buffer.ByteBuf frame = DirectBuffers.exact(frames.alloc(), length);
            try {
                dev.felix.wire.WireCodec.encodeFrame(binary, frame.internalNioBuffer(0, length));
            } catch (RuntimeException e) {
                frame.release();
                throw e;
            }
            return frame.writerIndex(length);
        }
        io.netty.buffer.ByteBuf frame = ClientFrames.encode(message);
        try {
            checkWithin(frame.readableBytes());
        } catch (FelixClientException e) {
            frame.release();
            throw e;
        }
        return frame;
    }

    private void checkWithin(int frameLength) {
        long payload = frameLength - (long) dev.felix.wire.FrameHeader.HEADER_LENGTH;
        if (payload > config.maxFrameBytes) {
            throw tooLarge("a frame of " + payload + " bytes");
        }
    }

    private FelixClientException tooLarge(String what) {
        return new FelixClientException(ErrorCode.TOO_LARGE, "the message is too large to send: " + what
                + " is more than max_frame_bytes (" + config.maxFrameBytes + " bytes; ClientConfig.Builder.maxFrameBytes,"
                + " which should match the broker's max_frame_bytes); nothing was sent");
    }

    private void acquire(long bytes, int count) {
        try {
            // Inside a NonBlockingHandler a full queue refuses as under DROP_NEW: waiting would stall the I/O
            // thread that has to read the acknowledgements making room.
            boolean block = config.publishQueuePolicy == PublishQueuePolicy.BLOCK && !NonBlockingScope.active();
            if (!budget.acquire(bytes, count, block ? InflightBudget.nanos(config.requestTimeout) : 0)) {
                if (!block) {
                    metrics.publishQueueDropped.add(count);
                    throw new FelixClientException(ErrorCode.OVERLOADED, "the client publish queue is full ("
                            + config.publishInflightEvents + " events / " + config.publishInflightBytes + " bytes)"
                            + (NonBlockingScope.active() ? "; a NonBlockingHandler never waits for room" : ""));
                }
                throw new FelixClientException(ErrorCode.TIMEOUT, "no room in the client publish queue within "
                        + config.requestTimeout.toMillis() + " ms");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new FelixClientException(ErrorCode.UNAVAILABLE, "interrupted while waiting to publish");
        }
    }

    private void onReply(WirePayload payload) {
        if (payload instanceof BinaryPublishResult result) {
            if (result.isOk()) {
                complete(result.requestId(), new PublishAck(result.shard(), result.firstOffset(), result.count()), null);
            } else {
                complete(result.requestId(), null, ClientFrames.toException(result));
            }
        } else if (payload instanceof BinaryPublishAck ack) {
            // only ever an answer to 0x0009, which this SDK does not send; read it as upstream means it
            Pending p = pending.get(ack.requestId());
            if (ack.status() == BinaryPublishAck.Status.OK) {
                complete(ack.requestId(), new PublishAck(-1, -1, p != null ? p.count : 0), null);
            } else {
                complete(ack.requestId(), null, new FelixClientException(ErrorCode.INTERNAL, ack.message()));
            }
        } else if (payload instanceof Message.PublishOk ok) {
            Pending p = pending.get(ok.requestId());
            int count = ok.count() != null ? ok.count() : (p != null ? p.count : 0);
            complete(ok.requestId(), new PublishAck(ok.shard() != null ? ok.shard() : -1,
                    ok.offset() != null ? ok.offset() : -1, count), null);
        } else if (payload instanceof Message.PublishError error) {
            complete(error.requestId(), null, ClientFrames.toException(error));
        } else if (payload instanceof Message.ErrorMessage error) {
            FelixClientException e = ClientFrames.toException(error);
            if (error.requestId() != null && pending.containsKey(error.requestId())) {
                complete(error.requestId(), null, e);
            } else if (error.requestId() == null && STREAM_FATAL.contains(e.code())) {
                // The broker ends the stream with this error (it cannot read the stream any more): every
                // acknowledgement still pending is lost with it, so fail them now, not at their timeout.
                lastError = e;
                onClosed(e);
            } else {
                lastError = e;
                refusedUnacked.increment();
            }
        }
        sweepTimeouts();
    }

    /**
     * Error codes the broker sends, without a request id, only when it ends the stream: its framing
     * broke ({@code too_large}: a frame over {@code max_frame_bytes}) or it is no longer authenticated.
     * A refused unacknowledged publish keeps the stream open and never carries these codes.
     */
    private static final java.util.Set<ErrorCode> STREAM_FATAL = java.util.EnumSet.of(ErrorCode.TOO_LARGE,
            ErrorCode.UNAUTHORIZED);

    private void onClosed(FelixClientException cause) {
        if (closedBy != null) {
            return;
        }
        FelixClientException e = cause != null ? cause : frames.endedWithoutError("publish stream");
        closedBy = e;
        for (Long id : List.copyOf(pending.keySet())) {
            complete(id, null, e);
        }
    }

    /** Fails acknowledgements that are overdue; runs on replies and from the client's timer. */
    void sweepTimeouts() {
        long now = System.nanoTime();
        List<Long> overdue = new ArrayList<>();
        for (Iterator<Map.Entry<Long, Pending>> it = pending.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Long, Pending> e = it.next();
            if (now - e.getValue().deadlineNanos > 0) {
                overdue.add(e.getKey());
            }
        }
        for (Long id : overdue) {
            complete(id, null, new FelixClientException(ErrorCode.TIMEOUT, "no acknowledgement within "
                    + config.requestTimeout.toMillis() + " ms"));
        }
    }

    private void complete(long id, PublishAck ack, FelixClientException error) {
        if (error != null) {
            notices.accept(error);
        }
        Pending p = pending.remove(id);
        if (p == null) {
            return;
        }
        budget.release(p.bytes, p.count);
        if (error != null) {
            p.future.completeExceptionally(error);
        } else {
            p.future.complete(ack);
        }
    }

    private PublishAck await(CompletableFuture<PublishAck> future) {
        try {
            return future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new FelixClientException(ErrorCode.UNAVAILABLE, "interrupted while waiting for an acknowledgement");
        } catch (ExecutionException e) {
            throw e.getCause() instanceof FelixClientException fe ? fe
                    : new FelixClientException(ErrorCode.INTERNAL, String.valueOf(e.getCause()));
        }
    }

    private static FelixClientException lost(Throwable cause) {
        return new FelixClientException(ErrorCode.CONNECTION_LOST, "write failed: " + cause.getMessage(), -1, cause);
    }

    private static long sum(List<byte[]> payloads) {
        long n = 0;
        for (byte[] p : payloads) {
            n += p.length;
        }
        return n;
    }
}
