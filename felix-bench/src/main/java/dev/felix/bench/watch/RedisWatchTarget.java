package dev.felix.bench.watch;

import dev.felix.bench.common.PeerProcess;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * Redis with keyspace notifications: a {@code redis-server} process without persistence, {@code
 * notify-keyspace-events K$} (keyspace events for string commands: {@code SET} publishes {@code "set"} on
 * {@code __keyspace@0__:<key>}).
 *
 * <p>A notification carries the event name, not the value, so a watcher must read the value back: that
 * extra round trip is the Redis way and part of its cost. Each watcher has two connections and two
 * threads: one {@code PSUBSCRIBE __keyspace@0__:<prefix>*} that queues the notified keys, and one that
 * drains the queue, drops duplicates and reads the values with one {@code MGET} per batch. The snapshot is
 * taken after the subscription is confirmed ({@code SCAN} + {@code MGET}), so no change can fall between
 * them. There are no revisions: order relies on reading the newest value each time. Notifications are
 * fire-and-forget: a subscriber past {@code client-output-buffer-limit pubsub} is disconnected and its copy
 * silently stale, which the convergence check would catch.
 *
 * <p>The writer pipelines {@code SET}s on one connection (one thread drains the put queue and sends each
 * batch as one pipeline), so puts are applied in issue order.
 */
final class RedisWatchTarget implements WatchTarget {

    private final AtomicBoolean closing = new AtomicBoolean();

    /** Largest batch of notified keys read back with one MGET, and of SETs sent in one pipeline. */
    private static final int BATCH = 512;

    private final PeerProcess server;
    private final String version;
    private final BlockingQueue<PendingPut> puts = new LinkedBlockingQueue<>();
    private final Thread writerThread;
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private volatile boolean closed;

    private record PendingPut(byte[] key, byte[] value, CompletableFuture<Void> done) {
    }

    private RedisWatchTarget(PeerProcess server, String version) {
        this.server = server;
        this.version = version;
        Jedis writer = connect(server.port());
        closeables.add(writer);
        writerThread = new Thread(() -> writeLoop(writer), "redis-watch-writer");
        writerThread.setDaemon(true);
        writerThread.start();
    }

    static WatchSystem system(String name, String binary) {
        return new PeerSystem(name, binary) {
            @Override
            public WatchTarget start(Path workDir) throws Exception {
                int port = PeerProcess.freePort();
                PeerProcess p = PeerProcess.start(name, List.of(path().toString(), "--port", Integer.toString(port),
                        "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", workDir.toString(),
                        "--notify-keyspace-events", "K$"), port, workDir, Duration.ofSeconds(20));
                try {
                    return new RedisWatchTarget(p, version());
                } catch (RuntimeException | Error e) {
                    p.close();
                    throw e;
                }
            }
        };
    }

    private static Jedis connect(int port) {
        return new Jedis("127.0.0.1", port, 10_000, 0); // no read timeout: a subscriber may idle
    }

    @Override
    public String name() {
        return "redis";
    }

    @Override
    public String describe() {
        return version + ", no persistence, notify-keyspace-events K$; writer: pipelined SET on one connection; "
                + "watchers: PSUBSCRIBE __keyspace@0__:prefix* + MGET of the notified keys (deduplicated per batch), "
                + "two connections each (Jedis)";
    }

    @Override
    public boolean orderedPuts() {
        return true;
    }

    @Override
    public CompletableFuture<?> put(String key, byte[] value) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        puts.add(new PendingPut(key.getBytes(StandardCharsets.UTF_8), value, done));
        return done;
    }

    private void writeLoop(Jedis jedis) {
        List<PendingPut> batch = new ArrayList<>(BATCH);
        while (!closed) {
            try {
                PendingPut first = puts.poll(100, TimeUnit.MILLISECONDS);
                if (first == null) {
                    continue;
                }
                batch.add(first);
                puts.drainTo(batch, BATCH - 1);
                Pipeline p = jedis.pipelined();
                for (PendingPut put : batch) {
                    p.set(put.key(), put.value());
                }
                p.sync();
                for (PendingPut put : batch) {
                    put.done().complete(null);
                }
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                for (PendingPut put : batch) {
                    put.done().completeExceptionally(e);
                }
                if (closed) {
                    return;
                }
            } finally {
                batch.clear();
            }
        }
    }

    @Override
    public Watcher startWatcher(String prefix, Listener listener) throws Exception {
        Jedis subscriber = connect(server.port());
        Jedis reader = connect(server.port());
        synchronized (closeables) {
            closeables.add(subscriber);
            closeables.add(reader);
        }
        String channelPrefix = "__keyspace@0__:";
        BlockingQueue<String> notified = new LinkedBlockingQueue<>();
        AtomicLong notifications = new AtomicLong();
        AtomicLong reads = new AtomicLong();
        AtomicReference<String> failure = new AtomicReference<>();
        CountDownLatch subscribed = new CountDownLatch(1);
        JedisPubSub pubSub = new JedisPubSub() {
            @Override
            public void onPSubscribe(String pattern, int subscribedChannels) {
                subscribed.countDown();
            }

            @Override
            public void onPMessage(String pattern, String channel, String message) {
                notifications.incrementAndGet();
                notified.add(channel.substring(channelPrefix.length()));
            }
        };
        Thread subThread = new Thread(() -> {
            try {
                subscriber.psubscribe(pubSub, channelPrefix + prefix + "*");
            } catch (RuntimeException e) {
                if (!closed) {
                    failure.compareAndSet(null, "subscriber connection: " + e.getMessage());
                }
            }
        }, "redis-watch-sub");
        subThread.setDaemon(true);
        subThread.start();
        if (!subscribed.await(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("PSUBSCRIBE not confirmed within 30 s");
        }
        Map<String, byte[]> state = new ConcurrentHashMap<>();
        // Snapshot after the subscription is live: every later change is notified, so nothing falls between.
        String cursor = ScanParams.SCAN_POINTER_START;
        Set<String> all = new LinkedHashSet<>();
        do {
            ScanResult<String> r = reader.scan(cursor, new ScanParams().match(prefix + "*").count(1000));
            all.addAll(r.getResult());
            cursor = r.getCursor();
        } while (!cursor.equals(ScanParams.SCAN_POINTER_START));
        readValues(reader, new ArrayList<>(all), state, listener);
        Thread readThread = new Thread(() -> {
            Set<String> batch = new LinkedHashSet<>();
            List<String> drained = new ArrayList<>(BATCH);
            while (!closed) {
                try {
                    String first = notified.poll(100, TimeUnit.MILLISECONDS);
                    if (first == null) {
                        continue;
                    }
                    batch.add(first);
                    notified.drainTo(drained, BATCH - 1);
                    batch.addAll(drained);
                    drained.clear();
                    reads.incrementAndGet();
                    readValues(reader, new ArrayList<>(batch), state, listener);
                    batch.clear();
                } catch (InterruptedException e) {
                    return;
                } catch (RuntimeException e) {
                    if (!closed) {
                        failure.compareAndSet(null, "reader connection: " + e.getMessage());
                    }
                    return;
                }
            }
        }, "redis-watch-read");
        readThread.setDaemon(true);
        readThread.start();
        return new Watcher() {
            @Override
            public Map<String, byte[]> state() {
                return new HashMap<>(state);
            }

            @Override
            public String failure() {
                return failure.get();
            }

            @Override
            public Map<String, Long> counters() {
                Map<String, Long> m = new LinkedHashMap<>();
                m.put("notifications", notifications.get());
                m.put("mget_batches", reads.get());
                return m;
            }

            @Override
            public void close() {
                try {
                    pubSub.punsubscribe();
                } catch (RuntimeException ignored) {
                    // the connection is closed with the target
                }
                readThread.interrupt();
            }
        };
    }

    private static void readValues(Jedis reader, List<String> keys, Map<String, byte[]> state, Listener listener) {
        for (int from = 0; from < keys.size(); from += BATCH) {
            List<String> part = keys.subList(from, Math.min(keys.size(), from + BATCH));
            byte[][] raw = new byte[part.size()][];
            for (int i = 0; i < raw.length; i++) {
                raw[i] = part.get(i).getBytes(StandardCharsets.UTF_8);
            }
            List<byte[]> values = reader.mget(raw);
            for (int i = 0; i < raw.length; i++) {
                byte[] v = values.get(i);
                String key = part.get(i);
                if (v == null) {
                    state.remove(key);
                } else {
                    state.put(key, v);
                    listener.onValue(key, v);
                }
            }
        }
    }

    @Override
    public Map<String, byte[]> read(List<String> keys) {
        Map<String, byte[]> out = new HashMap<>();
        try (Jedis jedis = connect(server.port())) {
            readValues(jedis, keys, out, (k, v) -> { });
        }
        return out;
    }

    @Override
    public long brokerCpuNanos() {
        return server.cpuNanos();
    }

    @Override
    public void close() {
        if (!closing.compareAndSet(false, true)) {
            return; // idempotent: the run's finally and a shutdown hook may both call it
        }
        closed = true;
        writerThread.interrupt();
        synchronized (closeables) {
            for (AutoCloseable c : closeables) {
                try {
                    c.close();
                } catch (Exception ignored) {
                    // the server is going away too
                }
            }
        }
        server.close();
    }
}
