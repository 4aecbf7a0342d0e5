package dev.felix.client;

import dev.felix.wire.ErrorCode;
import dev.felix.wire.CacheEntry;
import dev.felix.wire.BinaryWatchChanges;
import dev.felix.wire.Message;
import dev.felix.wire.WirePayload;
import java.time.Duration;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A local copy of a cache (or of the keys under a prefix) that converges to the broker's after any
 * stall, without ever slowing the writers.
 *
 * <p><b>Threads and buffers.</b> Reads ({@link #get}, {@link #snapshot}) are thread-safe and never block; the
 * watch is driven on the connection's event loop (applying changes, the re-watch backoff counter, scheduled
 * re-watches); {@link #pause}, {@link #resume} and {@link #close} may be called from any thread ({@code pause} and
 * {@code resume} hop onto the event loop, {@code close} ends the stream through the channel). Listeners run on that event loop and must be quick. It never sees a {@code ByteBuf}: watch frames are decoded
 * and released by {@code FrameStream}, and values are copies.
 *
 * <p>It watches the cache: first a consistent snapshot at a change offset, then every change after it in
 * order. If it falls behind, the broker ends the watch with the offset to resume from ({@code
 * watch_ended}); the mirror re-watches from there — or, if the broker no longer holds that offset, takes
 * a fresh snapshot. Re-watches are delayed by a random jitter that grows with consecutive attempts
 * (full jitter, capped), so thousands of mirrors that lag together do not storm the broker.
 *
 * <p>Reads ({@link #get}, {@link #snapshot}) are thread-safe and never block. Listeners run on the
 * connection's event loop and must be quick. The mirror ends when the connection is lost or it is
 * closed.
 */
public final class CacheMirror implements AutoCloseable {

    /** Receives applied changes. Called on the connection's event loop; must not block. */
    public interface Listener {
        /** {@code key} now holds {@code value}, or was removed ({@code value} null) at change {@code offset}. */
        void onChange(String key, byte[] value, long offset);

        /** The whole copy was replaced by a snapshot at {@code offset}. */
        default void onReset(long offset) {
        }
    }

    /** First re-watch delay bound; doubles per consecutive attempt. */
    static final long BASE_BACKOFF_MILLIS = 20;
    /** Largest re-watch delay bound. */
    static final long MAX_BACKOFF_MILLIS = 2_000;

    private final FelixClient client;
    private final CacheRef ref;
    private final String prefix;
    private final Integer queueEvents;
    private final ConcurrentHashMap<String, byte[]> data = new ConcurrentHashMap<>();
    private final List<Listener> listeners = new CopyOnWriteArrayList<>();
    private final AtomicLong rewatches = new AtomicLong();
    private final AtomicLong snapshots = new AtomicLong();
    private final AtomicLong changesApplied = new AtomicLong();

    /**
     * Which watch is current: bumped whenever the mirror retires a watch itself (to re-watch), so that the end
     * of a retired watch's stream is not taken for the end of the mirror.
     */
    private final AtomicInteger generation = new AtomicInteger();

    // Event-loop confined state of the current watch.
    private FrameStream stream;
    private Map<String, byte[]> staging;
    private int attempt;
    private volatile long nextOffset = -1;
    private volatile boolean live;
    private volatile boolean paused;
    private volatile boolean closed;
    private volatile FelixClientException endCause;

    private CacheMirror(FelixClient client, CacheRef ref, String prefix, Integer queueEvents) {
        this.client = client;
        this.ref = ref;
        this.prefix = prefix;
        this.queueEvents = queueEvents;
    }

    /** Starts mirroring; returns once the first snapshot is applied (or throws). */
    static CacheMirror start(FelixClient client, CacheRef ref, String prefix, Integer queueEvents) {
        CacheMirror m = new CacheMirror(client, ref, prefix, queueEvents);
        m.watch(null);
        long deadline = System.nanoTime() + TimeUnit.NANOSECONDS.convert(client.config().requestTimeout());
        while (!m.live && m.endCause == null && System.nanoTime() < deadline) {
            synchronized (m) {
                try {
                    m.wait(20);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        if (m.endCause != null) {
            throw m.endCause;
        }
        if (!m.live) {
            m.close();
            throw new FelixClientException(ErrorCode.TIMEOUT, "no snapshot of " + ref + " within the request timeout");
        }
        return m;
    }

    public CacheRef ref() {
        return ref;
    }

    /** The local value of {@code key}. */
    public Optional<byte[]> get(String key) {
        return Optional.ofNullable(data.get(key));
    }

    /** A copy of the whole local state. */
    public Map<String, byte[]> snapshot() {
        return Collections.unmodifiableMap(new HashMap<>(data));
    }

    public int size() {
        return data.size();
    }

    /** The next change offset this mirror expects: everything below it is applied. -1 before the first snapshot. */
    public long appliedOffset() {
        return nextOffset;
    }

    /** Whether a watch is live (snapshot applied, changes flowing); false while it re-watches or after it ended. */
    public boolean caughtUp() {
        return live && !paused;
    }

    /** Watches restarted after falling behind (or after a resume offset was gone). */
    public long rewatches() {
        return rewatches.get();
    }

    /** Snapshots applied (the first one and every fresh one after a lost resume offset). */
    public long snapshots() {
        return snapshots.get();
    }

    public long changesApplied() {
        return changesApplied.get();
    }

    /** Why the mirror stopped, or null while it runs. */
    public FelixClientException endCause() {
        return endCause;
    }

    /**
     * Adds a listener for changes applied from now on. Changes are applied on the connection's event loop, so one
     * may land between a {@link #snapshot()} taken on another thread and this call: to print or copy the state and
     * then follow it, use {@link #snapshotAndListen}.
     */
    public void addListener(Listener listener) {
        listeners.add(listener);
    }

    /** The local copy at one change offset: every change below {@code nextOffset} is in {@code entries}. */
    public record Copy(Map<String, byte[]> entries, long nextOffset) {
    }

    /**
     * Adds {@code listener} and returns a copy of the local state taken at the same moment, on the event loop that
     * applies changes: the listener receives exactly the changes from the copy's {@code nextOffset} on (a prefix
     * mirror's offsets may skip those of other keys), never one the copy holds, and none is missed between the two.
     * Waits for the event loop at most the request timeout; must not be called with a lock a listener takes.
     */
    public Copy snapshotAndListen(Listener listener) {
        io.netty.channel.EventLoop loop;
        FrameStream s = stream;
        try {
            loop = s != null ? s.channel().eventLoop() : client.connection().eventLoop();
        } catch (FelixClientException e) {
            return copyAndAdd(listener); // no watch and no connection: no change can arrive any more
        }
        if (loop.inEventLoop()) {
            return copyAndAdd(listener);
        }
        CompletableFuture<Copy> copy = new CompletableFuture<>();
        try {
            loop.execute(() -> copy.complete(copyAndAdd(listener)));
        } catch (java.util.concurrent.RejectedExecutionException e) {
            return copyAndAdd(listener); // the event loop has shut down: no change can arrive any more
        }
        try {
            return copy.get(client.config().requestTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new FelixClientException(ErrorCode.TIMEOUT, "interrupted while copying the mirror of " + ref);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new FelixClientException(ErrorCode.TIMEOUT, "the event loop of the mirror of " + ref
                    + " did not run the copy within the request timeout");
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException(e.getCause());
        }
    }

    private Copy copyAndAdd(Listener listener) {
        listeners.add(listener);
        return new Copy(Collections.unmodifiableMap(new HashMap<>(data)), nextOffset);
    }

    /**
     * Stops reading changes (the broker keeps writing until this watcher's queue overflows and ends the
     * watch); for tests and demos that simulate a stalled consumer.
     */
    public void pause() {
        paused = true;
        FrameStream s = stream;
        if (s != null) {
            s.channel().eventLoop().execute(() -> s.channel().config().setAutoRead(false));
        }
    }

    /** Reads again after {@link #pause()}; if the watch ended meanwhile, the mirror catches up. */
    public void resume() {
        paused = false;
        FrameStream s = stream;
        if (s != null) {
            s.channel().eventLoop().execute(() -> {
                s.channel().config().setAutoRead(true);
                s.channel().read();
            });
        }
    }

    @Override
    public void close() {
        closed = true;
        live = false;
        FrameStream s = stream;
        if (s != null) {
            s.finish();
            s.close();
        }
    }

    // ------------------------------------------------------------------ the watch

    private void watch(Long from) {
        if (closed) {
            return;
        }
        int watch = generation.get();
        io.netty.handler.codec.quic.QuicChannel connection;
        try {
            connection = client.connection();
        } catch (FelixClientException e) {
            end(e); // the connection was lost (or the client closed) before this re-watch
            return;
        }
        FrameStream.open(connection, client.config(), new FrameStream.Listener() {
            @Override
            public void onPayload(WirePayload payload) {
                onMessage(payload);
            }

            @Override
            public void onClosed(FelixClientException cause) {
                onStreamEnd(watch, cause);
            }
        }).whenComplete((fs, err) -> {
            if (err != null) {
                end(err instanceof FelixClientException fe ? fe
                        : new FelixClientException(ErrorCode.CONNECTION_LOST, String.valueOf(err)));
                return;
            }
            stream = fs;
            if (paused) {
                fs.channel().config().setAutoRead(false);
            }
            fs.write(new Message.CacheWatch(ref.tenant(), ref.namespace(), ref.cache(), prefix, from, queueEvents,
                    null));
        });
    }

    private void onMessage(WirePayload payload) {
        if (payload instanceof Message.WatchSnapshot s) {
            if (staging == null) {
                staging = new HashMap<>();
            }
            for (CacheEntry e : s.entries()) {
                staging.put(e.key(), e.value());
            }
            if (s.last()) {
                data.keySet().retainAll(staging.keySet());
                data.putAll(staging);
                staging = null;
                nextOffset = s.offset();
                snapshots.incrementAndGet();
                markLive();
                for (Listener l : listeners) {
                    l.onReset(s.offset());
                }
            }
        } else if (payload instanceof Message.WatchChange c) {
            apply(c);
        } else if (payload instanceof BinaryWatchChanges b) {
            // BINARY_WATCH: the same changes without JSON and base64; JSON ones may arrive on the same stream too
            for (Message.WatchChange c : b.changes()) {
                apply(c);
            }
        } else if (payload instanceof Message.WatchEnded ended) {
            live = false;
            // The broker no longer holds what we would resume from: converge through a fresh snapshot.
            boolean gone = ErrorCode.CURSOR_TOO_OLD.code().equals(ended.reason());
            rewatchLater(gone ? null : ended.resumeFrom());
        } else if (payload instanceof Message.ErrorMessage error) {
            live = false;
            ErrorCode code = ErrorCode.fromCode(error.code());
            if (code == ErrorCode.CURSOR_TOO_OLD) {
                rewatchLater(null); // the resume offset is gone: converge through a fresh snapshot
            } else {
                end(ClientFrames.toException(error));
            }
        }
    }

    private void apply(Message.WatchChange c) {
        if (c.offset() < nextOffset) {
            return; // already applied (cannot happen with a well-behaved broker; harmless)
        }
        if (Message.WatchChange.OP_PUT.equals(c.op())) {
            data.put(c.key(), c.value());
        } else {
            data.remove(c.key());
        }
        nextOffset = c.offset() + 1;
        changesApplied.incrementAndGet();
        markLive();
        for (Listener l : listeners) {
            l.onChange(c.key(), Message.WatchChange.OP_PUT.equals(c.op()) ? c.value() : null, c.offset());
        }
    }

    private void markLive() {
        if (!live) {
            live = true;
            attempt = 0;
            synchronized (this) {
                notifyAll();
            }
        }
    }

    /**
     * A watch stream ended. Unless the mirror is closed or retired that watch itself to re-watch, the mirror
     * ends with it: a copy that no longer follows the cache must not go on reporting itself caught up.
     */
    private void onStreamEnd(int watch, FelixClientException cause) {
        if (closed || watch != generation.get()) {
            return;
        }
        FrameStream s = stream;
        end(cause != null ? cause : s != null ? s.endedWithoutError("watch of " + ref)
                : new FelixClientException(ErrorCode.CONNECTION_LOST, "the watch of " + ref + " ended"
                        + (client.connected() ? ": the broker closed its stream"
                                : ": the connection to " + client.config().broker() + " was lost")));
    }

    private void rewatchLater(Long from) {
        generation.incrementAndGet(); // the old stream's end is ours, not the mirror's
        FrameStream old = stream;
        stream = null;
        staging = null;
        if (old != null) {
            old.finish();
            old.close();
        }
        if (closed) {
            return;
        }
        rewatches.incrementAndGet();
        long bound = Math.min(MAX_BACKOFF_MILLIS, BASE_BACKOFF_MILLIS << Math.min(attempt, 16));
        attempt++;
        long delay = ThreadLocalRandom.current().nextLong(bound + 1); // full jitter
        try {
            client.connection().eventLoop().schedule(() -> watch(from), delay, TimeUnit.MILLISECONDS);
        } catch (FelixClientException e) {
            end(e);
        }
    }

    private void end(FelixClientException cause) {
        synchronized (this) {
            if (endCause == null) {
                endCause = cause;
            }
        }
        live = false;
        synchronized (this) {
            notifyAll();
        }
        fireEnd();
    }

    /**
     * Runs {@code hook} once, with the cause, when this mirror ends (at once if it already has); for a
     * {@link ClusterMirror} that mirrors again from the cache's new home. Called on whichever thread ends it:
     * the hook must not block.
     */
    void onEnd(Consumer<FelixClientException> hook) {
        onEnd = hook;
        fireEnd();
    }

    private void fireEnd() {
        Consumer<FelixClientException> hook = onEnd;
        FelixClientException cause = endCause;
        if (hook != null && cause != null && endFired.compareAndSet(false, true)) {
            hook.accept(cause);
        }
    }

    private final java.util.concurrent.atomic.AtomicBoolean endFired = new java.util.concurrent.atomic.AtomicBoolean();
    private volatile Consumer<FelixClientException> onEnd;

    /** For tests: the re-watch delay bound after {@code attempts} consecutive attempts. */
    static Duration backoffBound(int attempts) {
        return Duration.ofMillis(Math.min(MAX_BACKOFF_MILLIS, BASE_BACKOFF_MILLIS << Math.min(attempts, 16)));
    }
}
