package dev.felix.server.protocol;

import dev.felix.core.ErrorCode;
import dev.felix.core.FelixError;
import dev.felix.core.FelixException;
import dev.felix.core.QueueLimits;
import dev.felix.core.cache.Cache;
import dev.felix.core.cache.CacheWatch;
import dev.felix.core.cache.Change;
import dev.felix.core.cache.SnapshotChunk;
import dev.felix.core.cache.WatchEnded;
import dev.felix.core.cache.WatchItem;
import dev.felix.core.cache.WatchListener;
import dev.felix.server.metrics.BrokerMetrics;
import dev.felix.transport.FrameBatch;
import dev.felix.transport.StreamEnds;
import dev.felix.wire.Capabilities;
import dev.felix.wire.Message;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

/**
 * Serves a {@code cache_watch} on the stream that carried it: a consistent snapshot ({@code watch_snapshot}
 * chunks) unless resuming, then every change in order ({@code watch_change}), until the watcher falls
 * behind — {@code watch_ended{resume_from}} and the stream ends — or the client ends its side of the stream
 * (which stops the watch). Pulled from the cache like a subscription (see {@link PulledWriter}): a slow
 * watcher fills its own queue in the cache and is ended there; the writers never wait.
 *
 * <p><b>Encodings.</b> A watcher that negotiated {@link Capabilities#BINARY_WATCH} gets its changes as binary
 * watch-change frames ({@code 0x0026}), any other as JSON {@code watch_change}; snapshots and the end are JSON for
 * both. Change and snapshot frames are encoded once and shared by every watch that writes them ({@link WatchFrames}).
 *
 * <p><b>One buffer per turn.</b> The frames of one drain are copied into one buffer ({@link FrameBatch}) before they
 * are written: the QUIC stream sends at least one packet per buffer written to it, so a watcher that fell behind by
 * a few changes gets them in one packet, not one packet (and one transport acknowledgement back) per change. A
 * single change costs the same as before: it is one buffer either way, and the stream would copy a heap frame into
 * a direct buffer anyway.
 *
 * <p><b>Lingering when many watch.</b> A cache with at least {@value #LINGER_MIN_WATCHES} watches costs the broker a
 * packet per change per watcher when its changes come one at a time, and the transport's acknowledgement of each. So
 * a watch stream of such a cache that sent changes less than {@code watch_linger_us} ago waits until that much time
 * has passed, and sends what came meanwhile together (counted in {@code felix_watch_lingers_total}). Changes further
 * apart than that never wait, nor does a backlog (a drain that stopped at its budget, or a watch queue half full:
 * the change that fills it to half wakes a lingering stream, which then sends at once, so lingering never overflows
 * a watcher's queue), nor any watch of a cache with fewer watches: at 1 and 10 watchers, and at low change rates,
 * nothing changes.
 *
 * <p><b>Fair to the event loop.</b> One drain writes at most {@value #FRAMES_PER_TURN} frames, then flushes and
 * queues its next turn behind whatever else the event loop has to do (issue 12 item 4): a reply that became ready
 * meanwhile — a put's acknowledgement on the writer's stream — waits for at most one turn of each watch stream on
 * the loop, not for every watcher's whole backlog. The put's own change wakes no stream ahead of its
 * acknowledgement: the cache answers a committed change before it offers it to the watches.
 *
 * <p><b>Threads and buffers.</b> Event-loop confined except {@link #onReady()}, which the cache's writer calls
 * and which only schedules a drain; the watch handle is volatile because it is set when the cache answers. It
 * writes new unpooled wrappers over encoded bytes (shared, see {@link WatchFrames}); Netty owns and releases each
 * wrapper once written.
 */
final class WatchWriter extends PulledWriter implements WatchListener {

    /**
     * Frames one drain writes before it yields the event loop. Small enough that a reply waits for little (a few
     * KiB per watch stream ahead of it), large enough that a turn's flush still fills QUIC packets.
     */
    static final int FRAMES_PER_TURN = 32;
    /** Watches a cache must feed before its watch streams linger ({@code watch_linger_us}); below it none waits. */
    static final int LINGER_MIN_WATCHES = 32;

    private final StreamSession session;
    private final ClientStreamHandler control;
    private volatile CacheWatch watch;
    /** Changes go as binary frames (the stream negotiated {@link Capabilities#BINARY_WATCH}). */
    private final boolean binary;
    /** This drain's frames, copied into one buffer: the stream sends a packet per buffer written to it. */
    private final FrameBatch merged;
    /** {@code watch_linger_us} in nanoseconds (0: never linger). */
    private final long lingerNanos;
    /** When this stream last sent changes ({@link System#nanoTime()}). Event loop. */
    private long lastFlush;
    /**
     * A linger task is pending; drains wait for it unless the watch queue fills to half. Written on the event loop,
     * read by the cache's writer too ({@link #holdingBack()}), hence volatile.
     */
    private volatile boolean lingering;
    /** The last drain stopped at its budget: the next one runs at once (a backlog is no reason to wait). Event loop. */
    private boolean yielded;
    private final Runnable lingerTask = this::drainAfterLinger;

    WatchWriter(StreamSession session, ClientStreamHandler control) {
        this.session = session;
        this.control = control;
        this.channel = session.channel;
        this.binary = Capabilities.has(session.negotiated(), Capabilities.BINARY_WATCH);
        this.merged = new FrameBatch(channel);
        this.lingerNanos = TimeUnit.MICROSECONDS.toNanos(session.context.config.watchLingerMicros());
        this.lastFlush = System.nanoTime() - lingerNanos; // the first changes never wait
    }

    void start(Message.CacheWatch request) {
        Cache cache;
        try {
            cache = Routing.cache(session.context,
                    Routing.cacheName(session.tenant(), request.tenantId(), request.namespace(), request.cache()));
        } catch (FelixException e) {
            refuse(e.error());
            return;
        }
        QueueLimits limits = cache.config().watcherQueue();
        if (request.queueEvents() != null) {
            // A watcher may ask for a smaller queue (cache_watch.queue_events), never a larger one.
            long asked = Integer.toUnsignedLong(request.queueEvents());
            if (asked == 0) {
                refuse(FelixError.of(ErrorCode.BAD_REQUEST, "queue_events must be positive"));
                return;
            }
            limits = new QueueLimits((int) Math.min(asked, limits.events()), limits.bytes());
        }
        channel.pipeline().addLast(this); // for writability changes
        cache.watch(request.prefix(), request.fromOffset(), null, limits, this).whenComplete((w, e) ->
                channel.eventLoop().execute(() -> started(w, e)));
    }

    private void started(CacheWatch w, Throwable e) {
        if (e != null) {
            Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
            refuse(cause instanceof FelixException fe ? fe.error()
                    : FelixError.of(ErrorCode.INTERNAL, String.valueOf(cause)));
            return;
        }
        watch = w;
        // Ending the client's side of the stream ends the watch.
        control.whenInputEnds(this::close);
        drainNow();
    }

    @Override
    public void onReady() {
        wake();
    }

    /** Lingering: the cache wakes this stream again when the watch queue fills to half. Cache writer thread. */
    @Override
    public boolean holdingBack() {
        return lingering;
    }

    /**
     * Writable again: the next turn is queued like any other, not run at once from the transport's callback, so
     * that it does not jump ahead of replies already waiting for the event loop (nor run a second turn of this
     * watch beside one already queued).
     */
    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (ctx.channel().isWritable()) {
            wake();
        }
        ctx.fireChannelWritabilityChanged();
    }

    private void drainAfterLinger() {
        if (!lingering) {
            return; // its queue reached half meanwhile and the stream sent early
        }
        lingering = false;
        if (!closed) {
            lastFlush = System.nanoTime() - lingerNanos; // this drain does not wait again
            drain();
        }
    }

    @Override
    protected void drain() {
        CacheWatch w = watch;
        if (w == null) {
            return;
        }
        if (lingering) {
            if (!w.queueHalfFull()) {
                return; // the linger task drains
            }
            lingering = false; // woken at half its queue: send now rather than risk an overflow
        }
        long now = System.nanoTime();
        if (lingerNanos > 0 && !yielded && now - lastFlush < lingerNanos
                && w.watchesOfCache() >= LINGER_MIN_WATCHES) {
            // Set before looking at the queue: either this sees it at half, or the cache's writer, filling it to
            // half afterwards, sees this stream holding back and wakes it.
            lingering = true;
            if (!w.queueHalfFull()) {
                session.context.metrics.watchLingers.increment();
                channel.eventLoop().schedule(lingerTask, lastFlush + lingerNanos - now, TimeUnit.NANOSECONDS);
                return;
            }
            lingering = false;
        }
        yielded = false;
        BrokerMetrics metrics = session.context.metrics;
        boolean wrote = false;
        int budget = FRAMES_PER_TURN;
        FrameBatch out = merged;
        while (channel.isWritable()) {
            if (budget-- == 0) {
                // The rest waits for the next turn, queued behind what the event loop has to do meanwhile.
                metrics.watchDrainYields.increment();
                yielded = true;
                wake();
                break;
            }
            WatchItem item = w.poll();
            if (item == null) {
                break;
            }
            wrote = true;
            if (item instanceof SnapshotChunk chunk) {
                metrics.watchSnapshotChunksWritten.increment();
                out.add(WatchFrames.snapshot(chunk, metrics), null);
            } else if (item instanceof Change c) {
                ByteBuf frame = WatchFrames.change(c, binary, metrics);
                (WatchFrames.isBinary(frame) ? metrics.watchChangesWrittenBinary : metrics.watchChangesWrittenJson)
                        .increment();
                out.add(frame, null);
            } else if (item instanceof WatchEnded ended) {
                closed = true;
                out.write();
                String reason = switch (ended.reason().code()) {
                    case OVERLOADED -> Message.WatchEnded.REASON_OVERFLOW;
                    case UNAVAILABLE -> Message.WatchEnded.REASON_SHUTDOWN;
                    case CURSOR_TOO_OLD -> ErrorCode.CURSOR_TOO_OLD.code(); // resume offset gone: snapshot again
                    default -> Message.WatchEnded.REASON_ERROR;
                };
                StreamEnds.writeLast(channel, Frames.json(new Message.WatchEnded(ended.resumeFrom(), reason,
                        ended.reason().message())));
                return;
            }
        }
        if (wrote) {
            out.write();
            channel.flush();
            lastFlush = now;
        }
    }

    private void refuse(FelixError error) {
        session.context.metrics.error(error.code());
        closed = true;
        StreamEnds.writeLast(channel, Frames.json(Frames.error(error, null, session.negotiated())));
    }

    /** Stops the watch; idempotent. */
    @Override
    void close() {
        CacheWatch w = watch;
        closed = true;
        if (w != null) {
            w.close();
        }
    }
}
