package dev.felix.bench.watch;

import dev.felix.bench.common.PeerProcess;
import io.nats.client.Connection;
import io.nats.client.Consumer;
import io.nats.client.ErrorListener;
import io.nats.client.JetStream;
import io.nats.client.KeyValue;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.KeyValueConfiguration;
import io.nats.client.api.KeyValueEntry;
import io.nats.client.api.KeyValueOperation;
import io.nats.client.api.KeyValueWatcher;
import io.nats.client.api.StorageType;
import io.nats.client.impl.NatsKeyValueWatchSubscription;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * NATS JetStream KV: a {@code nats-server -js} process, bucket {@code watch} (history 1, file storage:
 * the server's default, which fsyncs on a background timer, so a PubAck means "in the page cache"). The
 * writer publishes to the bucket's subjects with {@code publishAsync} on one connection — exactly what
 * {@code KeyValue.put} sends, without blocking for each ack; one connection keeps the issue order. Each
 * watcher is its own connection with {@code KeyValue.watch("cfg.>")}: an ordered consumer that delivers
 * the last value per key, an end-of-initial-data marker, then every update.
 */
final class NatsKvWatchTarget implements WatchTarget {

    private final AtomicBoolean closing = new AtomicBoolean();

    static final String BUCKET = "watch";

    private final PeerProcess server;
    private final String version;
    private final Connection writer;
    private final JetStream js;
    private final List<Connection> watcherConnections = new ArrayList<>();

    private NatsKvWatchTarget(PeerProcess server, String version, Connection writer) throws Exception {
        this.server = server;
        this.version = version;
        this.writer = writer;
        this.js = writer.jetStream();
    }

    static WatchSystem system(String name, String binary) {
        return new PeerSystem(name, binary) {
            @Override
            public WatchTarget start(Path workDir) throws Exception {
                int port = PeerProcess.freePort();
                PeerProcess p = PeerProcess.start(name, List.of(path().toString(), "-a", "127.0.0.1", "-p",
                        Integer.toString(port), "-js", "-sd", workDir.resolve("js").toString()), port, workDir,
                        Duration.ofSeconds(20));
                try {
                    Connection c = connect(port, null);
                    c.keyValueManagement().create(KeyValueConfiguration.builder().name(BUCKET).maxHistoryPerKey(1)
                            .storageType(StorageType.File).build());
                    return new NatsKvWatchTarget(p, version(), c);
                } catch (Exception | Error e) {
                    p.close();
                    throw e;
                }
            }
        };
    }

    private static Connection connect(int port, ErrorListener errors) throws Exception {
        Options.Builder b = new Options.Builder().server("nats://127.0.0.1:" + port).connectionTimeout(Duration.ofSeconds(10))
                .noReconnect();
        if (errors != null) {
            b.errorListener(errors);
        }
        return Nats.connect(b.build());
    }

    @Override
    public String name() {
        return "nats-kv";
    }

    @Override
    public String describe() {
        return version + ", JetStream KV (file storage, history 1); writer: publishAsync to $KV.watch.<key> on one "
                + "connection; watchers: KeyValue.watch(prefix.>), one connection each (jnats)";
    }

    @Override
    public boolean orderedPuts() {
        return true;
    }

    @Override
    public CompletableFuture<?> put(String key, byte[] value) {
        return js.publishAsync("$KV." + BUCKET + "." + key, value);
    }

    @Override
    public Watcher startWatcher(String prefix, Listener listener) throws Exception {
        AtomicLong slowConsumer = new AtomicLong();
        AtomicLong errors = new AtomicLong();
        Map<String, String> failure = new ConcurrentHashMap<>();
        Connection c = connect(server.port(), new ErrorListener() {
            @Override
            public void errorOccurred(Connection conn, String error) {
                errors.incrementAndGet();
                failure.putIfAbsent("error", error);
            }

            @Override
            public void exceptionOccurred(Connection conn, Exception exp) {
                errors.incrementAndGet();
                failure.putIfAbsent("error", String.valueOf(exp));
            }

            @Override
            public void slowConsumerDetected(Connection conn, Consumer consumer) {
                slowConsumer.incrementAndGet();
            }
        });
        synchronized (watcherConnections) {
            watcherConnections.add(c);
        }
        KeyValue kv = c.keyValue(BUCKET);
        Map<String, byte[]> state = new ConcurrentHashMap<>();
        CountDownLatch initial = new CountDownLatch(1);
        String subject = prefix.endsWith(".") ? prefix + ">" : prefix + ".>";
        NatsKeyValueWatchSubscription sub = kv.watch(subject, new KeyValueWatcher() {
            @Override
            public void watch(KeyValueEntry e) {
                if (e.getOperation() == KeyValueOperation.PUT) {
                    state.put(e.getKey(), e.getValue());
                    listener.onValue(e.getKey(), e.getValue());
                } else {
                    state.remove(e.getKey());
                }
            }

            @Override
            public void endOfData() {
                initial.countDown();
            }
        });
        if (!initial.await(60, TimeUnit.SECONDS)) {
            sub.unsubscribe();
            throw new IllegalStateException("no end of initial data from the NATS KV watch within 60 s");
        }
        return new Watcher() {
            @Override
            public Map<String, byte[]> state() {
                return new HashMap<>(state);
            }

            @Override
            public String failure() {
                if (c.getStatus() != Connection.Status.CONNECTED) {
                    return "connection " + c.getStatus();
                }
                return failure.get("error");
            }

            @Override
            public Map<String, Long> counters() {
                Map<String, Long> m = new LinkedHashMap<>();
                m.put("slow_consumer", slowConsumer.get());
                m.put("errors", errors.get());
                return m;
            }

            @Override
            public void close() {
                try {
                    sub.unsubscribe();
                } catch (RuntimeException ignored) {
                    // closing anyway
                }
            }
        };
    }

    @Override
    public Map<String, byte[]> read(List<String> keys) throws Exception {
        KeyValue kv = writer.keyValue(BUCKET);
        Map<String, byte[]> out = new HashMap<>();
        for (String k : keys) {
            KeyValueEntry e = kv.get(k);
            if (e != null && e.getOperation() == KeyValueOperation.PUT) {
                out.put(k, e.getValue());
            }
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
        synchronized (watcherConnections) {
            for (Connection c : watcherConnections) {
                closeQuietly(c);
            }
        }
        closeQuietly(writer);
        server.close();
    }

    private static void closeQuietly(Connection c) {
        try {
            c.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException ignored) {
            // the server is going away too
        }
    }
}
