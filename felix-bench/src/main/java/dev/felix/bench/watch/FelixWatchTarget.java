package dev.felix.bench.watch;

import dev.felix.bench.common.PeerProcess;
import dev.felix.client.Cache;
import dev.felix.client.CacheMirror;
import dev.felix.client.CacheRef;
import dev.felix.client.CacheSpec;
import dev.felix.client.ClientConfig;
import dev.felix.client.ClientResources;
import dev.felix.client.FelixClient;
import dev.felix.client.FelixClientException;
import dev.felix.demos.cluster.NodeProcess;
import dev.felix.transport.ClientTrust;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Felix: a broker in a process of its own ({@link BrokerMain}, started like the peers' binaries, on
 * loopback, QUIC + TLS 1.3 always on), a cache of the chosen backing, puts through {@link Cache#putAsync}
 * on one long-lived stream (requests are applied and answered in order, so puts may be pipelined), and one
 * {@link CacheMirror} per watcher, each on its own client connection (its own QUIC connection and
 * event-loop thread), as separate processes would have.
 */
final class FelixWatchTarget implements WatchTarget {

    private final AtomicBoolean closing = new AtomicBoolean();

    static final CacheRef CACHE = new CacheRef("bench", "default", "watch");
    /** The broker's heap: the cache and its change ring are small; this leaves the collector room. */
    private static final String BROKER_HEAP = "-Xmx2g";
    /** Extra JVM options for the broker process, e.g. a flight recording while profiling. */
    static final String BROKER_JAVA_OPTS = "FELIX_BENCH_BROKER_JAVA_OPTS";

    private final String name;
    private final CacheSpec spec;
    private final PeerProcess broker;
    /** The watchers' client configuration: {@link #watcherResources} shared. */
    private final ClientConfig watcherConfig;
    private final FelixClient writerClient;
    private final Cache cache;
    private final List<FelixClient> watcherClients = new ArrayList<>();
    /**
     * The watchers' connections share event loops and handler threads, one of each per core, as a process holding a
     * hundred connections should (the default, a thread of each per connection, puts 200 threads in this JVM).
     */
    private final ClientResources watcherResources;

    private FelixWatchTarget(String name, CacheSpec spec, PeerProcess broker, ClientConfig.Builder clientConfig,
            FelixClient writerClient, Cache cache) {
        this.name = name;
        this.spec = spec;
        this.broker = broker;
        this.watcherResources = ClientResources.create(0, 0);
        this.watcherConfig = clientConfig.resources(watcherResources).build();
        this.writerClient = writerClient;
        this.cache = cache;
    }

    /** A system that starts a fresh broker process per run; {@code settings} are broker setting overrides. */
    static WatchSystem system(String name, CacheSpec spec, Map<String, String> settings) {
        return new WatchSystem() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public String unavailable() {
                return null;
            }

            @Override
            public WatchTarget start(Path workDir) throws Exception {
                return FelixWatchTarget.start(name, spec, settings, workDir);
            }
        };
    }

    static FelixWatchTarget start(String name, CacheSpec spec, Map<String, String> settings, Path workDir)
            throws Exception {
        int quicPort = PeerProcess.freePort();
        int httpPort = PeerProcess.freePort();
        Path data = workDir.resolve("data");
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                BROKER_HEAP));
        List<String> extraOptions = extraOptions();
        if (!choosesCollector(extraOptions)) { // the collector `./felix server` chooses on this JDK
            cmd.addAll(NodeProcess.SERVER_JVM);
        }
        cmd.addAll(extraOptions);
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), BrokerMain.class.getName(),
                "data_dir=" + data, "quic_bind=127.0.0.1:" + quicPort, "http_bind=127.0.0.1:" + httpPort));
        settings.forEach((k, v) -> cmd.add(k + "=" + v));
        // The admin HTTP port (TCP) opens after the QUIC one is bound: waiting for it waits for both.
        PeerProcess p = PeerProcess.start(name, cmd, httpPort, workDir, Duration.ofSeconds(60));
        try {
            Path cert = data.resolve("tls").resolve("cert.pem");
            if (!Files.exists(cert)) {
                throw new IllegalStateException("the broker wrote no certificate at " + cert + ":\n" + p.logTail());
            }
            ClientConfig.Builder config = ClientConfig.builder(ClientTrust.certificates(cert))
                    .broker(new InetSocketAddress("127.0.0.1", quicPort)).tenant(CACHE.tenant());
            FelixClient writer = FelixClient.connect(config.build()); // the writer runs on threads of its own
            writer.caches().create(CACHE, spec);
            return new FelixWatchTarget(name, spec, p, config, writer, writer.cache(CACHE));
        } catch (Exception | Error e) {
            p.close();
            throw e;
        }
    }

    @Override
    public String name() {
        return name;
    }

    /** {@link #BROKER_JAVA_OPTS}, split into options. */
    private static List<String> extraOptions() {
        String extra = System.getenv(BROKER_JAVA_OPTS);
        return extra == null || extra.isBlank() ? List.of() : List.of(extra.trim().split("\\s+"));
    }

    private static boolean choosesCollector(List<String> options) {
        return options.stream().anyMatch(o -> o.startsWith("-XX:+Use") && o.endsWith("GC"));
    }

    @Override
    public String describe() {
        String collector = choosesCollector(extraOptions())
                ? "the collector " + BROKER_JAVA_OPTS + " names" : "./felix server's collector";
        return "Felix broker process (" + BROKER_HEAP + ", Java " + Runtime.version().feature() + ", " + collector
                + "), QUIC+TLS 1.3 loopback, cache backing=" + spec.backing()
                + (spec.fsync() != null ? " fsync=" + spec.fsync() : "")
                + "; writer: Cache.putAsync on one stream; watchers: CacheMirror, one client connection each, sharing one"
                + " ClientResources (an event loop and a handler thread per core)";
    }

    @Override
    public boolean orderedPuts() {
        return true;
    }

    @Override
    public CompletableFuture<?> put(String key, byte[] value) {
        return cache.putAsync(key, value, null);
    }

    @Override
    public Watcher startWatcher(String prefix, Listener listener) {
        FelixClient client = FelixClient.connect(watcherConfig);
        synchronized (watcherClients) {
            watcherClients.add(client);
        }
        CacheMirror mirror = client.mirror(CACHE, prefix);
        mirror.addListener(new CacheMirror.Listener() {
            @Override
            public void onChange(String key, byte[] value, long offset) {
                if (value != null) {
                    listener.onValue(key, value);
                }
            }

            @Override
            public void onReset(long offset) {
                // A fresh snapshot replaced the copy (the mirror fell behind and its resume point was gone).
                mirror.snapshot().forEach(listener::onValue);
            }
        });
        // The first snapshot was applied before the listener existed; no writes run while watchers start.
        mirror.snapshot().forEach(listener::onValue);
        return new Watcher() {
            @Override
            public Map<String, byte[]> state() {
                return mirror.snapshot();
            }

            @Override
            public String failure() {
                FelixClientException e = mirror.endCause();
                return e == null ? null : String.valueOf(e.getMessage());
            }

            @Override
            public Map<String, Long> counters() {
                Map<String, Long> c = new LinkedHashMap<>();
                c.put("rewatches", mirror.rewatches());
                c.put("snapshots", mirror.snapshots());
                c.put("changes_applied", mirror.changesApplied());
                return c;
            }

            @Override
            public void close() {
                mirror.close();
            }
        };
    }

    @Override
    public Map<String, byte[]> read(List<String> keys) {
        Map<String, CompletableFuture<Optional<byte[]>>> gets = new LinkedHashMap<>();
        for (String k : keys) {
            gets.put(k, cache.getAsync(k));
        }
        Map<String, byte[]> out = new LinkedHashMap<>();
        gets.forEach((k, f) -> f.join().ifPresent(v -> out.put(k, v)));
        return out;
    }

    @Override
    public long brokerCpuNanos() {
        return broker.cpuNanos();
    }

    @Override
    public void close() {
        if (!closing.compareAndSet(false, true)) {
            return; // idempotent: the run's finally and a shutdown hook may both call it
        }
        cache.close();
        synchronized (watcherClients) {
            for (FelixClient c : watcherClients) {
                c.close();
            }
        }
        watcherResources.close();
        writerClient.close();
        broker.close();
    }
}
