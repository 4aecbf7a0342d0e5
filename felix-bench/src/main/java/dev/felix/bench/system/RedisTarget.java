package dev.felix.bench.system;

import dev.felix.bench.common.PeerProcess;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import redis.clients.jedis.BinaryJedisPubSub;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;

/**
 * Redis pub/sub ({@code redis} / {@code redis-tls}), with {@code redis-server} started by the harness on a
 * free loopback port in a temporary directory (persistence off), reached through Jedis, one connection
 * per publisher and per subscriber (each subscriber reads on a thread of its own).
 *
 * <p>Confirmed publish = PUBLISH and its reply (the server has written the message to every subscriber's
 * output buffer); batch publish = pipelined PUBLISHes whose replies are read every {@link #SYNC_EVERY}
 * messages. Redis has no backpressure for pub/sub (a subscriber past its output-buffer limit is
 * disconnected), so the workload bounds what is in flight. With TLS, the server presents a fresh
 * self-signed certificate ({@link PeerTls}) that the clients trust; the plain port is then closed.
 */
final class RedisTarget implements Target {

    static final String BINARY = "redis-server";
    private static final Duration START_TIMEOUT = Duration.ofSeconds(15);
    /** Pipelined publishes between two reads of their replies. */
    static final int SYNC_EVERY = 1024;
    private static final int SOCKET_TIMEOUT_MS = 30_000;

    private final String name;
    private final WorkDir dir;
    private final PeerProcess server;
    private final PeerTls tls;
    private final List<AutoCloseable> open = new ArrayList<>();

    private RedisTarget(String name, WorkDir dir, PeerProcess server, PeerTls tls) {
        this.name = name;
        this.dir = dir;
        this.server = server;
        this.tls = tls;
    }

    static TargetFactory factory(String name, boolean tls) {
        return new TargetFactory() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public String unavailable() {
                return PeerProcess.which(BINARY).isPresent() ? null
                        : BINARY + " not installed (run bench/peers/install.sh)";
            }

            @Override
            public Target start() throws Exception {
                return RedisTarget.start(name, tls);
            }
        };
    }

    static RedisTarget start(String name, boolean withTls) throws Exception {
        Path binary = PeerProcess.which(BINARY).orElseThrow(() -> new IllegalStateException(BINARY + " not installed"));
        WorkDir dir = WorkDir.create(name);
        try {
            int port = PeerProcess.freePort();
            List<String> command = new ArrayList<>(List.of(binary.toString(), "--bind", "127.0.0.1",
                    "--dir", dir.path().toString(), "--save", "", "--appendonly", "no", "--daemonize", "no"));
            PeerTls tls = null;
            if (withTls) {
                tls = PeerTls.create(dir.path().resolve("tls"));
                command.addAll(List.of("--port", "0", "--tls-port", Integer.toString(port),
                        "--tls-cert-file", tls.cert().toString(), "--tls-key-file", tls.key().toString(),
                        "--tls-auth-clients", "no"));
            } else {
                command.addAll(List.of("--port", Integer.toString(port)));
            }
            PeerProcess server = PeerProcess.start(name, command, port, dir.path(), START_TIMEOUT);
            return new RedisTarget(name, dir, server, tls);
        } catch (Exception | Error e) {
            dir.close();
            throw e;
        }
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public boolean backpressure() {
        return false;
    }

    @Override
    public boolean brokerInThisProcess() {
        return false;
    }

    @Override
    public long brokerCpuNanos() {
        return server.cpuNanos();
    }

    private Jedis connect() {
        DefaultJedisClientConfig.Builder config = DefaultJedisClientConfig.builder()
                .socketTimeoutMillis(SOCKET_TIMEOUT_MS).connectionTimeoutMillis(5_000);
        if (tls != null) {
            config.ssl(true).sslSocketFactory(tls.client().getSocketFactory());
        }
        Jedis jedis = new Jedis(new HostAndPort("127.0.0.1", server.port()), config.build());
        track(jedis);
        return jedis;
    }

    private void track(AutoCloseable c) {
        synchronized (open) {
            open.add(c);
        }
    }

    private void untrack(AutoCloseable c) {
        synchronized (open) {
            open.remove(c);
        }
    }

    @Override
    public Target.Publisher publisher(String topic) {
        return new RedisPublisher(connect(), topic.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public AutoCloseable subscribe(String topic, Handler handler) throws Exception {
        Jedis jedis = connect();
        byte[] channel = topic.getBytes(StandardCharsets.UTF_8);
        CountDownLatch subscribed = new CountDownLatch(1);
        BinaryJedisPubSub pubSub = new BinaryJedisPubSub() {
            @Override
            public void onSubscribe(byte[] ch, int count) {
                subscribed.countDown();
            }

            @Override
            public void onMessage(byte[] ch, byte[] message) {
                handler.onMessage(message);
            }
        };
        Thread reader = new Thread(() -> {
            try {
                jedis.subscribe(pubSub, channel); // returns once unsubscribed
            } catch (RuntimeException e) {
                // Disconnected (e.g. cut off as a slow consumer): the sequence check reports what never came.
                subscribed.countDown();
            }
        }, "redis-subscriber-" + topic);
        reader.setDaemon(true);
        reader.start();
        if (!subscribed.await(10, TimeUnit.SECONDS) || !pubSub.isSubscribed()) {
            jedis.close();
            throw new IllegalStateException(name + ": SUBSCRIBE " + topic + " was not confirmed");
        }
        AutoCloseable subscription = () -> {
            if (pubSub.isSubscribed()) {
                pubSub.unsubscribe();
            }
            reader.join(TimeUnit.SECONDS.toMillis(10));
            untrack(jedis);
            jedis.close();
        };
        return subscription;
    }

    @Override
    public void close() {
        List<AutoCloseable> left;
        synchronized (open) {
            left = new ArrayList<>(open);
            open.clear();
        }
        for (AutoCloseable c : left) {
            try {
                c.close();
            } catch (Exception ignored) {
                // the server is stopped next anyway
            }
        }
        server.close();
        dir.close();
    }

    private final class RedisPublisher implements Target.Publisher {
        private final Jedis jedis;
        private final byte[] channel;
        private Pipeline pipeline;
        private int unsynced;

        RedisPublisher(Jedis jedis, byte[] channel) {
            this.jedis = jedis;
            this.channel = channel;
        }

        @Override
        public void publishConfirmed(byte[] message) {
            jedis.publish(channel, message);
        }

        @Override
        public void publishBatch(List<byte[]> messages) {
            if (pipeline == null) {
                pipeline = jedis.pipelined();
            }
            for (byte[] m : messages) {
                pipeline.publish(channel, m);
            }
            unsynced += messages.size();
            if (unsynced >= SYNC_EVERY) {
                sync();
            }
        }

        private void sync() {
            pipeline.sync(); // sends what is buffered and reads every pending reply
            unsynced = 0;
        }

        @Override
        public void flush() {
            if (pipeline != null) {
                sync();
            }
        }

        @Override
        public void close() {
            if (pipeline != null) {
                pipeline.close();
                pipeline = null;
            }
            untrack(jedis);
            jedis.close();
        }
    }
}
