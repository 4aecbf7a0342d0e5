package dev.felix.server.config;

import dev.felix.core.CoreConfig;
import dev.felix.core.QueueLimits;
import dev.felix.core.QueuePolicy;
import dev.felix.core.StreamName;
import dev.felix.transport.TransportConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A broker's typed configuration. Immutable and thread-safe; its {@link Builder} is for one thread.
 *
 * <p>{@code felix server} resolves it from defaults, YAML, environment and flags with {@link ConfigLoader}; an
 * embedding program starts from {@link #builder()} (every default, as {@code felix server} with no configuration
 * uses them). Every field is documented, with its default and unit, on its {@link Settings} entry, whose default
 * is taken from the {@code DEFAULT_*} constant of the config type that owns the value (this class,
 * {@link CoreConfig}, {@link CoreConfig.Storage}, {@link TransportConfig}, {@link ClusterConfig}). Each builder
 * option checks its value at the call with the same rule as the setting's parser, and the
 * {@link IllegalArgumentException} names the setting; {@link Builder#build()} checks the rules between settings.
 */
public record BrokerConfig(
        Path dataDir,
        HostPort quicBind,
        HostPort httpBind,
        boolean insecure,
        Map<String, List<String>> authTokens,
        Path tlsCert,
        Path tlsKey,
        int maxFrameBytes,
        boolean autoCreate,
        int shardThreads,
        boolean inlineWriters,
        long segmentBytes,
        boolean repairCorruptTail,
        Duration retentionCheck,
        int storageFlushThreads,
        int ringEvents,
        long ringBytes,
        QueueLimits writerQueue,
        QueueLimits subscriberQueue,
        QueuePolicy subscriberQueuePolicy,
        Settings.IngressPolicy ingressPolicy,
        long connWindowBytes,
        long streamWindowBytes,
        long maxStreams,
        Duration idleTimeout,
        int maxUdpPayloadBytes,
        int quicIoThreads,
        int watchLingerMicros,
        boolean pooledPayloads,
        long pooledPayloadsSlackBytes,
        Duration shutdownTimeout,
        ClusterConfig cluster) {

    /** Default {@code data_dir}: {@code ./data}. */
    public static final Path DEFAULT_DATA_DIR = Path.of("./data");
    /** Default {@code quic_bind}: {@code 127.0.0.1:5000}. */
    public static final HostPort DEFAULT_QUIC_BIND = new HostPort("127.0.0.1", 5000);
    /** Default {@code http_bind}: {@code 127.0.0.1:8080}. */
    public static final HostPort DEFAULT_HTTP_BIND = new HostPort("127.0.0.1", 8080);
    /** Default {@code max_frame_bytes}: 16 MiB. */
    public static final int DEFAULT_MAX_FRAME_BYTES = 16 << 20;
    /** Default {@code ingress_policy}: {@code block}. */
    public static final Settings.IngressPolicy DEFAULT_INGRESS_POLICY = Settings.IngressPolicy.BLOCK;
    /**
     * Default {@code quic_io_threads}: 1. One event loop serves every client connection; more spread connections
     * over cores (measured in docs/benchmarks.md, "Event loops").
     */
    public static final int DEFAULT_QUIC_IO_THREADS = 1;
    /**
     * Default {@code watch_linger_us}: 5,000 (5 ms). Only caches with many watches wait (see
     * {@code WatchWriter.LINGER_MIN_WATCHES}); at 100 watchers it let the broker sustain several times the change rate
     * (docs/benchmarks.md, "Watch changes per packet").
     */
    public static final int DEFAULT_WATCH_LINGER_US = 5_000;
    /**
     * Default {@code pooled_payloads}: on. Binary publishes keep their payloads in payload blocks, not one heap array
     * each (docs/code-layout.md, "Where the payload bytes are copied"): on the benchmark VM a fifth to three fifths of
     * the broker's allocation per delivery, latency level or better, throughput level or faster at 4 KiB but not
     * faster at 1 KiB once the JVM is warm (0.76-0.92x in three of four rounds at fanout 10; docs/benchmarks.md,
     * "Pooled payloads by default" and "Warm-up by time"). Off: one heap array per payload, as JSON publishes always
     * have.
     */
    public static final boolean DEFAULT_POOLED_PAYLOADS = true;
    /**
     * Default {@code pooled_payloads_slack_bytes}: 32 MiB (one slab). Payload blocks in use beyond twice the payload
     * bytes held by more than this make the broker copy the payloads rings kept over a second into arrays
     * ({@code PayloadPressure}).
     */
    public static final long DEFAULT_POOLED_PAYLOADS_SLACK_BYTES = 32L << 20;
    /** Default {@code shutdown_timeout_ms}: 10 s. */
    public static final Duration DEFAULT_SHUTDOWN_TIMEOUT = Duration.ofSeconds(10);

    public BrokerConfig {
        required(Settings.DATA_DIR, dataDir);
        required(Settings.QUIC_BIND, quicBind);
        required(Settings.HTTP_BIND, httpBind);
        authTokens = copyOf(checkTokens(authTokens));
        check(Settings.MAX_FRAME_BYTES, maxFrameBytes);
        check(Settings.SHARD_THREADS, shardThreads);
        check(Settings.SEGMENT_BYTES, segmentBytes);
        checkMillis(Settings.RETENTION_CHECK_MS, retentionCheck);
        check(Settings.STORAGE_FLUSH_THREADS, storageFlushThreads);
        check(Settings.RING_EVENTS, ringEvents);
        check(Settings.RING_BYTES, ringBytes);
        checkQueue(Settings.WRITER_QUEUE_EVENTS, Settings.WRITER_QUEUE_BYTES, writerQueue);
        checkQueue(Settings.SUBSCRIBER_QUEUE_EVENTS, Settings.SUBSCRIBER_QUEUE_BYTES, subscriberQueue);
        check(Settings.SUBSCRIBER_QUEUE_POLICY, subscriberQueuePolicy == null ? null : subscriberQueuePolicy.wireName());
        required(Settings.INGRESS_POLICY, ingressPolicy);
        check(Settings.CONN_WINDOW_BYTES, connWindowBytes);
        check(Settings.STREAM_WINDOW_BYTES, streamWindowBytes);
        check(Settings.MAX_STREAMS, maxStreams);
        checkMillis(Settings.IDLE_TIMEOUT_MS, idleTimeout);
        check(Settings.MAX_UDP_PAYLOAD_BYTES, maxUdpPayloadBytes);
        check(Settings.QUIC_IO_THREADS, quicIoThreads);
        check(Settings.WATCH_LINGER_US, watchLingerMicros);
        checkMillis(Settings.SHUTDOWN_TIMEOUT_MS, shutdownTimeout);
        if ((tlsCert == null) != (tlsKey == null)) {
            throw new IllegalArgumentException("tls_cert and tls_key must be set together (tls_cert " + tlsCert
                    + ", tls_key " + tlsKey + "); leave both unset to generate a self-signed certificate");
        }
        if (cluster != null && autoCreate) {
            throw new IllegalArgumentException("auto_create is not supported in a cluster: create streams and caches"
                    + " explicitly (felix stream create, felix cache create)");
        }
    }

    /** Whether this node is a member of a cluster ({@link #cluster()} is set). */
    public boolean clustered() {
        return cluster != null;
    }

    /** Dev mode: no authentication configured; any {@code auth} is accepted (loopback only). */
    public boolean devMode() {
        return authTokens.isEmpty();
    }

    /** The defaults, as {@code felix server} with no configuration uses them. */
    public static BrokerConfig defaults() {
        try {
            return ConfigLoader.load(null, Map.of(), Map.of());
        } catch (ConfigException e) {
            throw new IllegalStateException("built-in defaults are invalid: " + e.getMessage(), e);
        }
    }

    /** A builder holding every default ({@link #defaults()}). */
    public static Builder builder() {
        return defaults().toBuilder();
    }

    /** A builder starting from this configuration. */
    public Builder toBuilder() {
        return new Builder().dataDir(dataDir).quicBind(quicBind).httpBind(httpBind).insecure(insecure)
                .authTokens(authTokens).tls(tlsCert, tlsKey).maxFrameBytes(maxFrameBytes).autoCreate(autoCreate)
                .shardThreads(shardThreads).inlineWriters(inlineWriters).segmentBytes(segmentBytes)
                .repairCorruptTail(repairCorruptTail).retentionCheck(retentionCheck)
                .storageFlushThreads(storageFlushThreads).ringEvents(ringEvents).ringBytes(ringBytes)
                .writerQueue(writerQueue).subscriberQueue(subscriberQueue).subscriberQueuePolicy(subscriberQueuePolicy)
                .ingressPolicy(ingressPolicy).connWindowBytes(connWindowBytes).streamWindowBytes(streamWindowBytes)
                .maxStreams(maxStreams).idleTimeout(idleTimeout).maxUdpPayloadBytes(maxUdpPayloadBytes)
                .quicIoThreads(quicIoThreads).watchLingerMicros(watchLingerMicros).pooledPayloads(pooledPayloads)
                .pooledPayloadsSlackBytes(pooledPayloadsSlackBytes).shutdownTimeout(shutdownTimeout)
                .cluster(cluster);
    }

    /** The core's settings these imply. */
    public CoreConfig coreConfig() {
        return CoreConfig.builder()
                .shardThreads(shardThreads)
                .ringEvents(ringEvents)
                .ringBytes(ringBytes)
                .writerQueue(writerQueue)
                .subscriberQueue(subscriberQueue)
                .ephemeralPolicy(subscriberQueuePolicy)
                .autoCreate(autoCreate)
                .openTenants(autoCreate || devMode())
                .inlineWriters(inlineWriters)
                .storage(CoreConfig.Storage.builder(dataDir).segmentBytes(segmentBytes)
                        .repairCorruptTail(repairCorruptTail).flushThreads(storageFlushThreads)
                        .retentionCheck(retentionCheck).build())
                .build();
    }

    /** The QUIC settings these imply (the server endpoint runs {@code quic_io_threads} event loops). */
    public TransportConfig transportConfig() {
        return TransportConfig.builder()
                .connectionWindowBytes(connWindowBytes)
                .streamWindowBytes(streamWindowBytes)
                .maxStreams(maxStreams)
                .idleTimeout(idleTimeout)
                .maxUdpPayloadBytes(maxUdpPayloadBytes)
                .ioThreads(quicIoThreads)
                .build();
    }

    /** A copy with other bind addresses (tests bind to port 0). */
    public BrokerConfig withBinds(HostPort quic, HostPort http) {
        return toBuilder().quicBind(quic).httpBind(http).build();
    }

    /** A copy with another data directory. */
    public BrokerConfig withDataDir(Path dir) {
        return toBuilder().dataDir(dir).build();
    }

    private static <T> T required(Setting<?> setting, T value) {
        if (value == null) {
            throw new IllegalArgumentException(setting.key() + " must be set, was null");
        }
        return value;
    }

    /**
     * Applies the setting's own parser to the value's text, so a built config and a loaded one obey exactly the
     * same rule; the message names the setting.
     */
    private static <T> T check(Setting<?> setting, T value) {
        required(setting, value);
        try {
            setting.parser().apply(String.valueOf(value));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(setting.key() + " " + e.getMessage(), e);
        }
        return value;
    }

    private static Duration checkMillis(Setting<?> setting, Duration value) {
        required(setting, value);
        check(setting, value.toMillis());
        return value;
    }

    private static QueueLimits checkQueue(Setting<?> events, Setting<?> bytes, QueueLimits limits) {
        required(events, limits);
        check(events, limits.events());
        check(bytes, limits.bytes());
        return limits;
    }

    /** A deep copy, so the record stays immutable whatever map the caller keeps. */
    private static Map<String, List<String>> copyOf(Map<String, List<String>> tokens) {
        Map<String, List<String>> copy = new java.util.LinkedHashMap<>();
        tokens.forEach((tenant, list) -> copy.put(tenant, List.copyOf(list)));
        return java.util.Collections.unmodifiableMap(copy);
    }

    private static Map<String, List<String>> checkTokens(Map<String, List<String>> tokens) {
        required(Settings.AUTH_TOKENS, tokens);
        tokens.forEach((tenant, list) -> {
            try {
                StreamName.checkPart("tenant", tenant);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException(Settings.AUTH_TOKENS.key() + " " + e.getMessage(), e);
            }
            if (list == null || list.isEmpty() || list.stream().anyMatch(t -> t == null || t.isEmpty())) {
                throw new IllegalArgumentException(Settings.AUTH_TOKENS.key() + " needs at least one non-empty token"
                        + " for tenant " + tenant + ", was " + list);
            }
        });
        return tokens;
    }

    /**
     * Builds a {@link BrokerConfig}. {@link BrokerConfig#builder()} starts from every default; each option checks
     * its value at the call (the message names the setting, as in {@link Settings}). Not thread-safe.
     */
    public static final class Builder {
        private Path dataDir;
        private HostPort quicBind;
        private HostPort httpBind;
        private boolean insecure;
        private Map<String, List<String>> authTokens = Map.of();
        private Path tlsCert;
        private Path tlsKey;
        private int maxFrameBytes;
        private boolean autoCreate;
        private int shardThreads;
        private boolean inlineWriters;
        private long segmentBytes;
        private boolean repairCorruptTail;
        private Duration retentionCheck;
        private int storageFlushThreads;
        private int ringEvents;
        private long ringBytes;
        private QueueLimits writerQueue;
        private QueueLimits subscriberQueue;
        private QueuePolicy subscriberQueuePolicy;
        private Settings.IngressPolicy ingressPolicy;
        private long connWindowBytes;
        private long streamWindowBytes;
        private long maxStreams;
        private Duration idleTimeout;
        private int maxUdpPayloadBytes;
        private int quicIoThreads;
        private int watchLingerMicros;
        private boolean pooledPayloads;
        private long pooledPayloadsSlackBytes;
        private Duration shutdownTimeout;
        private ClusterConfig cluster;

        /** Empty: only {@link ConfigLoader} (which sets every value) and {@link BrokerConfig#toBuilder()} use it. */
        Builder() {
        }

        /** {@code data_dir}: logs, caches and the generated TLS certificate; default {@code ./data}. */
        public Builder dataDir(Path dir) {
            this.dataDir = required(Settings.DATA_DIR, dir);
            return this;
        }

        /** {@code quic_bind}: the QUIC listener; default {@code 127.0.0.1:5000}. */
        public Builder quicBind(HostPort bind) {
            this.quicBind = required(Settings.QUIC_BIND, bind);
            return this;
        }

        /** {@code http_bind}: the admin HTTP listener; default {@code 127.0.0.1:8080}. */
        public Builder httpBind(HostPort bind) {
            this.httpBind = required(Settings.HTTP_BIND, bind);
            return this;
        }

        /** {@code insecure}: allow a non-loopback bind without authentication; default false. */
        public Builder insecure(boolean value) {
            this.insecure = value;
            return this;
        }

        /** {@code auth_tokens}: static tokens per tenant; default none (dev mode: any auth, loopback only). */
        public Builder authTokens(Map<String, List<String>> tokens) {
            this.authTokens = checkTokens(tokens);
            return this;
        }

        /** {@code tls_cert} and {@code tls_key} (PEM); both null (the default) = a generated self-signed one. */
        public Builder tls(Path cert, Path key) {
            this.tlsCert = cert;
            this.tlsKey = key;
            return this;
        }

        /** {@code max_frame_bytes}: largest frame accepted or sent, in bytes; default 16 MiB. */
        public Builder maxFrameBytes(int bytes) {
            this.maxFrameBytes = check(Settings.MAX_FRAME_BYTES, bytes);
            return this;
        }

        /** {@code auto_create}: create tenants, namespaces and ephemeral streams on first use; default: dev mode. */
        public Builder autoCreate(boolean value) {
            this.autoCreate = value;
            return this;
        }

        /** {@code shard_threads}: shard writer threads, 0..1024 (0 = one per core); default 0. */
        public Builder shardThreads(int threads) {
            this.shardThreads = check(Settings.SHARD_THREADS, threads);
            return this;
        }

        /** {@code shard_executor inline}: shard writers on the QUIC event loop; default false (pool). */
        public Builder inlineWriters(boolean value) {
            this.inlineWriters = value;
            return this;
        }

        /** {@code segment_bytes}: durable log segment size in bytes; default 256 MiB. */
        public Builder segmentBytes(long bytes) {
            this.segmentBytes = check(Settings.SEGMENT_BYTES, bytes);
            return this;
        }

        /** {@code repair_corrupt_tail}: cut a corrupted last record at open; default false. */
        public Builder repairCorruptTail(boolean value) {
            this.repairCorruptTail = value;
            return this;
        }

        /** {@code retention_check_ms}: how often retention runs; default 60 s. */
        public Builder retentionCheck(Duration interval) {
            this.retentionCheck = checkMillis(Settings.RETENTION_CHECK_MS, interval);
            return this;
        }

        /** {@code storage_flush_threads}: fsync threads of every log, 1..256; default 4. */
        public Builder storageFlushThreads(int threads) {
            this.storageFlushThreads = check(Settings.STORAGE_FLUSH_THREADS, threads);
            return this;
        }

        /** {@code ring_events}: recent events per shard kept in memory; default 65,536. */
        public Builder ringEvents(int events) {
            this.ringEvents = check(Settings.RING_EVENTS, events);
            return this;
        }

        /** {@code ring_bytes}: recent payload bytes per shard kept in memory; default 64 MiB. */
        public Builder ringBytes(long bytes) {
            this.ringBytes = check(Settings.RING_BYTES, bytes);
            return this;
        }

        /** {@code writer_queue_events} / {@code _bytes}: per shard; default 16,384 / 32 MiB. */
        public Builder writerQueue(QueueLimits limits) {
            this.writerQueue = checkQueue(Settings.WRITER_QUEUE_EVENTS, Settings.WRITER_QUEUE_BYTES, limits);
            return this;
        }

        /** {@code subscriber_queue_events} / {@code _bytes}: per subscriber; default 8,192 / 16 MiB. */
        public Builder subscriberQueue(QueueLimits limits) {
            this.subscriberQueue = checkQueue(Settings.SUBSCRIBER_QUEUE_EVENTS, Settings.SUBSCRIBER_QUEUE_BYTES, limits);
            return this;
        }

        /** {@code subscriber_queue_policy}: ephemeral streams, not {@code catch_up}; default {@code drop_new}. */
        public Builder subscriberQueuePolicy(QueuePolicy policy) {
            required(Settings.SUBSCRIBER_QUEUE_POLICY, policy);
            check(Settings.SUBSCRIBER_QUEUE_POLICY, policy.wireName());
            this.subscriberQueuePolicy = policy;
            return this;
        }

        /** {@code ingress_policy}: when a shard's writer queue is full; default {@code block}. */
        public Builder ingressPolicy(Settings.IngressPolicy policy) {
            this.ingressPolicy = required(Settings.INGRESS_POLICY, policy);
            return this;
        }

        /** {@code conn_window_bytes}: QUIC connection window in bytes; default 64 MiB. */
        public Builder connWindowBytes(long bytes) {
            this.connWindowBytes = check(Settings.CONN_WINDOW_BYTES, bytes);
            return this;
        }

        /** {@code stream_window_bytes}: QUIC per-stream window in bytes; default 16 MiB. */
        public Builder streamWindowBytes(long bytes) {
            this.streamWindowBytes = check(Settings.STREAM_WINDOW_BYTES, bytes);
            return this;
        }

        /** {@code max_streams}: concurrent QUIC streams of each kind per connection; default 4096. */
        public Builder maxStreams(long streams) {
            this.maxStreams = check(Settings.MAX_STREAMS, streams);
            return this;
        }

        /** {@code idle_timeout_ms}: QUIC idle timeout, 1 s..24 h; default 60 s. */
        public Builder idleTimeout(Duration timeout) {
            this.idleTimeout = checkMillis(Settings.IDLE_TIMEOUT_MS, timeout);
            return this;
        }

        /** {@code max_udp_payload_bytes}: 0 (the default, automatic) or 1200..65527. */
        public Builder maxUdpPayloadBytes(int bytes) {
            this.maxUdpPayloadBytes = check(Settings.MAX_UDP_PAYLOAD_BYTES, bytes);
            return this;
        }

        /**
         * {@code quic_io_threads}: event loops serving client connections, 1..64, each on its own UDP socket sharing
         * {@code quic_bind} (SO_REUSEPORT; with the NIO transport, one); default {@value #DEFAULT_QUIC_IO_THREADS}.
         */
        public Builder quicIoThreads(int threads) {
            this.quicIoThreads = check(Settings.QUIC_IO_THREADS, threads);
            return this;
        }

        /**
         * {@code watch_linger_us}: 0..1,000,000; for a cache with many watches, how long a watch stream that just sent
         * changes waits before it sends the next ones, so that quick changes share packets; 0 never waits; default
         * {@value #DEFAULT_WATCH_LINGER_US}.
         */
        public Builder watchLingerMicros(int micros) {
            this.watchLingerMicros = check(Settings.WATCH_LINGER_US, micros);
            return this;
        }

        /**
         * {@code pooled_payloads}: binary publishes keep their payloads in pooled buffers (one copy out of the frame,
         * no heap array per payload; a durable log appends from them) instead of arrays; default
         * {@value #DEFAULT_POOLED_PAYLOADS}.
         */
        public Builder pooledPayloads(boolean pooled) {
            this.pooledPayloads = pooled;
            return this;
        }

        /**
         * {@code pooled_payloads_slack_bytes}: how far payload blocks in use may exceed twice the payload bytes held
         * before the broker copies the payloads rings kept over a second into arrays; default
         * {@value #DEFAULT_POOLED_PAYLOADS_SLACK_BYTES}.
         */
        public Builder pooledPayloadsSlackBytes(long bytes) {
            this.pooledPayloadsSlackBytes = bytes;
            return this;
        }

        /** {@code shutdown_timeout_ms}: how long in-flight work may take on SIGTERM; default 10 s. */
        public Builder shutdownTimeout(Duration timeout) {
            this.shutdownTimeout = checkMillis(Settings.SHUTDOWN_TIMEOUT_MS, timeout);
            return this;
        }

        /** Cluster membership; null (the default) for a single node. */
        public Builder cluster(ClusterConfig value) {
            this.cluster = value;
            return this;
        }

        /**
         * The configuration. Besides the constructor's rules (TLS files together, no {@code auto_create} in a
         * cluster) it refuses a non-loopback QUIC bind without authentication and a non-loopback HTTP bind
         * unless {@code insecure} is set. ({@link ConfigLoader} checks the binds first, naming where each value
         * came from.)
         */
        public BrokerConfig build() {
            required(Settings.QUIC_BIND, quicBind);
            required(Settings.HTTP_BIND, httpBind);
            if (!quicBind.isLoopback() && authTokens.isEmpty() && !insecure) {
                throw new IllegalArgumentException("quic_bind " + quicBind + " is not a loopback address and no"
                        + " authentication is configured: set auth_tokens, or insecure to accept any client");
            }
            if (!httpBind.isLoopback() && !insecure) {
                throw new IllegalArgumentException("http_bind " + httpBind + " is not a loopback address; the admin"
                        + " endpoints have no authentication: set insecure to allow it");
            }
            return new BrokerConfig(dataDir, quicBind, httpBind, insecure, authTokens, tlsCert, tlsKey, maxFrameBytes,
                    autoCreate, shardThreads, inlineWriters, segmentBytes, repairCorruptTail, retentionCheck,
                    storageFlushThreads, ringEvents, ringBytes, writerQueue, subscriberQueue, subscriberQueuePolicy,
                    ingressPolicy, connWindowBytes, streamWindowBytes, maxStreams, idleTimeout, maxUdpPayloadBytes,
                    quicIoThreads, watchLingerMicros, pooledPayloads, pooledPayloadsSlackBytes, shutdownTimeout, cluster);
        }
    }
}
