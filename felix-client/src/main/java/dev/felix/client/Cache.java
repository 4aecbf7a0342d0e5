package dev.felix.client;

import dev.felix.wire.ErrorCode;
import dev.felix.wire.Message;
import dev.felix.wire.WirePayload;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Put, get and delete on one cache, over a long-lived QUIC stream with requests correlated by id. Every
 * put and delete gets the cache's change offset, the same numbering a watch or a {@link CacheMirror}
 * sees. Thread-safe.
 *
 * <p><b>Threads and buffers.</b> Any thread may call it; requests are encoded on the caller's thread into new
 * unpooled frames whose ownership passes to the stream's channel on write. Replies are decoded on the connection's
 * event loop, which completes the futures (attach heavy work with the {@code *Async} variants). Decoded values are
 * copies; the frames are released by {@code FrameStream}.
 */
public final class Cache implements AutoCloseable {

    private final CacheRef ref;
    private final ClientConfig config;
    private final FrameStream frames;
    private final AtomicLong ids = new AtomicLong();
    private final Map<Long, CompletableFuture<Message>> pending = new ConcurrentHashMap<>();
    private volatile FelixClientException closedBy;

    private Cache(CacheRef ref, ClientConfig config, FrameStream frames) {
        this.ref = ref;
        this.config = config;
        this.frames = frames;
    }

    static CompletableFuture<Cache> open(FelixClient client, CacheRef ref) {
        Cache[] self = new Cache[1];
        return FrameStream.open(client.connection(), client.config(), new FrameStream.Listener() {
            @Override
            public void onPayload(WirePayload payload) {
                self[0].onReply(payload);
            }

            @Override
            public void onClosed(FelixClientException cause) {
                self[0].onClosed(cause);
            }
        }).thenApply(fs -> self[0] = new Cache(ref, client.config(), fs));
    }

    public CacheRef ref() {
        return ref;
    }

    /**
     * Sets {@code key}; returns the change offset. {@code ttl} null: the cache's default TTL; otherwise at
     * least 1 ms.
     *
     * @throws IllegalArgumentException if {@code ttl} is zero, negative or below 1 ms
     */
    public long put(String key, byte[] value, Duration ttl) {
        NonBlockingScope.refuseWait("put and wait for the reply (use putAsync)");
        return await(putAsync(key, value, ttl));
    }

    /** Like {@link #put}, without waiting. */
    public CompletableFuture<Long> putAsync(String key, byte[] value, Duration ttl) {
        if (ttl != null && ttl.toMillis() < 1) {
            throw new IllegalArgumentException("ttl must be at least 1 ms (null: the cache's default TTL), was " + ttl);
        }
        long id = ids.incrementAndGet();
        return request(id, new Message.CachePut(ref.tenant(), ref.namespace(), ref.cache(), key, value, id,
                ttl == null ? null : ttl.toMillis())).thenApply(Cache::offset);
    }

    /** The value of {@code key}, or empty if it is absent or expired. */
    public Optional<byte[]> get(String key) {
        NonBlockingScope.refuseWait("get and wait for the reply (use getAsync)");
        return await(getAsync(key));
    }

    public CompletableFuture<Optional<byte[]>> getAsync(String key) {
        long id = ids.incrementAndGet();
        return request(id, new Message.CacheGet(ref.tenant(), ref.namespace(), ref.cache(), key, id))
                .thenApply(m -> Optional.ofNullable(((Message.CacheValue) m).value()));
    }

    /**
     * Removes {@code key}; returns the change offset, or {@code -1} if there was nothing to remove (the
     * key was absent or expired; an older broker without {@code CACHE_EXT} also reports no offset).
     */
    public long delete(String key) {
        NonBlockingScope.refuseWait("delete and wait for the reply (use deleteAsync)");
        return await(deleteAsync(key));
    }

    public CompletableFuture<Long> deleteAsync(String key) {
        long id = ids.incrementAndGet();
        return request(id, new Message.CacheDelete(ref.tenant(), ref.namespace(), ref.cache(), key, id))
                .thenApply(Cache::offset);
    }

    /** Whether this cache stream has ended (closed by the application, the broker or a lost connection). */
    boolean closed() {
        return closedBy != null;
    }

    @Override
    public void close() {
        frames.finish();
        frames.close();
        if (closedBy == null) {
            closedBy = frames.endedWithoutError("cache stream"); // requests from now on say this client closed it
        }
    }

    private static long offset(Message m) {
        Long o = ((Message.CacheOk) m).offset();
        return o == null ? -1 : o;
    }

    private CompletableFuture<Message> request(long id, Message message) {
        CompletableFuture<Message> reply = new CompletableFuture<>();
        FelixClientException closed = closedBy;
        if (closed != null) {
            reply.completeExceptionally(closed);
            return reply;
        }
        pending.put(id, reply);
        frames.write(message).addListener(f -> {
            if (!f.isSuccess()) {
                fail(id, new FelixClientException(ErrorCode.CONNECTION_LOST, "write failed: " + f.cause().getMessage(),
                        -1, f.cause()));
            }
        });
        return reply.orTimeout(config.requestTimeout().toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)
                .whenComplete((m, e) -> pending.remove(id));
    }

    private void onReply(WirePayload payload) {
        if (payload instanceof Message.CacheOk ok) {
            complete(ok.requestId(), ok);
        } else if (payload instanceof Message.CacheValue v && v.requestId() != null) {
            complete(v.requestId(), v);
        } else if (payload instanceof Message.ErrorMessage e) {
            FelixClientException ex = ClientFrames.toException(e);
            if (e.requestId() != null) {
                fail(e.requestId(), ex);
            } else {
                onClosed(ex); // an error without a request id ends the stream
            }
        }
    }

    private void complete(long id, Message m) {
        CompletableFuture<Message> f = pending.get(id);
        if (f != null) {
            f.complete(m);
        }
    }

    private void fail(long id, FelixClientException e) {
        CompletableFuture<Message> f = pending.get(id);
        if (f != null) {
            f.completeExceptionally(e);
        }
    }

    private void onClosed(FelixClientException cause) {
        FelixClientException e = cause != null ? cause : frames.endedWithoutError("cache stream");
        closedBy = e;
        for (CompletableFuture<Message> f : pending.values()) {
            f.completeExceptionally(e);
        }
    }

    private static <T> T await(CompletableFuture<T> future) {
        try {
            return future.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new FelixClientException(ErrorCode.UNAVAILABLE, "interrupted");
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof FelixClientException fe) {
                throw fe;
            }
            if (c instanceof java.util.concurrent.TimeoutException) {
                throw new FelixClientException(ErrorCode.TIMEOUT, "no reply from the broker in time");
            }
            throw new FelixClientException(ErrorCode.INTERNAL, String.valueOf(c), -1, c);
        }
    }
}
