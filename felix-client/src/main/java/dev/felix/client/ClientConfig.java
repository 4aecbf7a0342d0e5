package dev.felix.client;

import dev.felix.transport.ClientTrust;
import dev.felix.transport.TransportConfig;
import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * How a {@link FelixClient} connects and behaves. Immutable and thread-safe; its {@link Builder} is for one thread.
 *
 * <p>Build with {@link #builder(ClientTrust)}. Every default is a {@code DEFAULT_*} constant below, documented (with
 * its unit) on the builder method that changes it; every option checks its value at the call and refuses a bad one
 * with an {@link IllegalArgumentException} naming the option and the value.
 */
public final class ClientConfig {

    /** Default broker address: {@code 127.0.0.1:5000}. */
    public static final InetSocketAddress DEFAULT_BROKER = new InetSocketAddress("127.0.0.1", 5000);
    /** Default tenant: {@code t1}. */
    public static final String DEFAULT_TENANT = "t1";
    /** Default token: {@code dev} (any token works against a broker in dev mode). */
    public static final String DEFAULT_TOKEN = "dev";
    /** Default QUIC idle timeout of a client: 15 s, so a broker that vanished without closing is noticed. */
    public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(15);
    /** Default QUIC settings: {@link TransportConfig#defaults()} with {@link #DEFAULT_IDLE_TIMEOUT}. */
    public static final TransportConfig DEFAULT_TRANSPORT =
            TransportConfig.builder().idleTimeout(DEFAULT_IDLE_TIMEOUT).build();
    /** Default largest frame accepted from the broker: 16 MiB. */
    public static final int DEFAULT_MAX_FRAME_BYTES = 16 << 20;
    /** Smallest {@code maxFrameBytes}: 1 KiB. */
    public static final int MIN_MAX_FRAME_BYTES = 1024;
    /** Default connect timeout: 10 s. */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);
    /** Default request timeout: 30 s. */
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(30);
    /** Default keep-alive interval: 5 s (well inside the idle timeout). */
    public static final Duration DEFAULT_KEEP_ALIVE = Duration.ofSeconds(5);
    /** Default publish queue per publisher: 4 MiB of payload. */
    public static final long DEFAULT_PUBLISH_INFLIGHT_BYTES = 4L << 20;
    /** Default publish queue per publisher: 16,384 events. */
    public static final int DEFAULT_PUBLISH_INFLIGHT_EVENTS = 16_384;
    /** Default publish queue policy: {@link PublishQueuePolicy#BLOCK}. */
    public static final PublishQueuePolicy DEFAULT_PUBLISH_QUEUE_POLICY = PublishQueuePolicy.BLOCK;
    /** Default receive queue per subscription: 8,192 events. */
    public static final int DEFAULT_RECEIVE_QUEUE_EVENTS = 8192;
    /** Default receive queue per subscription: 16 MiB of payload. */
    public static final long DEFAULT_RECEIVE_QUEUE_BYTES = 16L << 20;
    /** Default client-wide receive budget: 256 MiB across every subscription and watch of one client. */
    public static final long DEFAULT_RECEIVE_BUDGET_BYTES = 256L << 20;
    /** Default receive queue policy: {@link ReceivePolicy#BLOCK}. */
    public static final ReceivePolicy DEFAULT_RECEIVE_POLICY = ReceivePolicy.BLOCK;
    /** Default: carry every subscription on one multiplexed session stream when the broker speaks it. */
    public static final boolean DEFAULT_MULTIPLEX_SUBSCRIPTIONS = true;

    final InetSocketAddress broker;
    final String serverName;
    final ClientTrust trust;
    final String tenant;
    final String token;
    final TransportConfig transport;
    final int maxFrameBytes;
    final Duration connectTimeout;
    final Duration requestTimeout;
    final Duration keepAlive;
    final long publishInflightBytes;
    final int publishInflightEvents;
    final PublishQueuePolicy publishQueuePolicy;
    final int receiveQueueEvents;
    final long receiveQueueBytes;
    final ReceivePolicy receivePolicy;
    final long receiveBudgetBytes;
    final boolean multiplexSubscriptions;
    final int handlerThreads;
    /** Shared threads, or null: the client owns an event loop and handler threads of its own. */
    final ClientResources resources;

    private ClientConfig(Builder b) {
        this.broker = b.broker;
        this.serverName = b.serverName != null ? b.serverName : defaultServerName(b.broker);
        this.trust = b.trust;
        this.tenant = b.tenant;
        this.token = b.token;
        this.transport = b.transport;
        this.maxFrameBytes = b.maxFrameBytes;
        this.connectTimeout = b.connectTimeout;
        this.requestTimeout = b.requestTimeout;
        this.keepAlive = b.keepAlive;
        this.publishInflightBytes = b.publishInflightBytes;
        this.publishInflightEvents = b.publishInflightEvents;
        this.publishQueuePolicy = b.publishQueuePolicy;
        this.receiveQueueEvents = b.receiveQueueEvents;
        this.receiveQueueBytes = b.receiveQueueBytes;
        this.receivePolicy = b.receivePolicy;
        this.receiveBudgetBytes = b.receiveBudgetBytes;
        this.multiplexSubscriptions = b.multiplexSubscriptions;
        this.handlerThreads = b.handlerThreads;
        this.resources = b.resources;
    }

    public static Builder builder(ClientTrust trust) {
        return new Builder(trust);
    }

    public InetSocketAddress broker() {
        return broker;
    }

    public String tenant() {
        return tenant;
    }

    public Duration requestTimeout() {
        return requestTimeout;
    }

    /**
     * This configuration aimed at another node of the same cluster; a server name left to its default follows
     * the address.
     */
    ClientConfig forBroker(InetSocketAddress address) {
        Builder b = new Builder(trust);
        b.broker = address;
        b.serverName = serverName.equals(defaultServerName(broker)) ? null : serverName;
        b.tenant = tenant;
        b.token = token;
        b.transport = transport;
        b.maxFrameBytes = maxFrameBytes;
        b.connectTimeout = connectTimeout;
        b.requestTimeout = requestTimeout;
        b.keepAlive = keepAlive;
        b.publishInflightBytes = publishInflightBytes;
        b.publishInflightEvents = publishInflightEvents;
        b.publishQueuePolicy = publishQueuePolicy;
        b.receiveQueueEvents = receiveQueueEvents;
        b.receiveQueueBytes = receiveQueueBytes;
        b.receivePolicy = receivePolicy;
        b.multiplexSubscriptions = multiplexSubscriptions;
        b.handlerThreads = handlerThreads;
        b.resources = resources;
        b.receiveBudgetBytes = receiveBudgetBytes;
        return new ClientConfig(b);
    }

    private static String defaultServerName(InetSocketAddress address) {
        if (address.getAddress() != null && address.getAddress().isLoopbackAddress()) {
            return "localhost"; // what a generated development certificate names
        }
        return address.getHostString();
    }

    /** Builder; each setter checks its argument at once. */
    public static final class Builder {
        private InetSocketAddress broker = DEFAULT_BROKER;
        private String serverName;
        private final ClientTrust trust;
        private String tenant = DEFAULT_TENANT;
        private String token = DEFAULT_TOKEN;
        private TransportConfig transport = DEFAULT_TRANSPORT;
        private int maxFrameBytes = DEFAULT_MAX_FRAME_BYTES;
        private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
        private Duration requestTimeout = DEFAULT_REQUEST_TIMEOUT;
        private Duration keepAlive = DEFAULT_KEEP_ALIVE;
        private long publishInflightBytes = DEFAULT_PUBLISH_INFLIGHT_BYTES;
        private int publishInflightEvents = DEFAULT_PUBLISH_INFLIGHT_EVENTS;
        private PublishQueuePolicy publishQueuePolicy = DEFAULT_PUBLISH_QUEUE_POLICY;
        private int receiveQueueEvents = DEFAULT_RECEIVE_QUEUE_EVENTS;
        private long receiveQueueBytes = DEFAULT_RECEIVE_QUEUE_BYTES;
        private ReceivePolicy receivePolicy = DEFAULT_RECEIVE_POLICY;
        private long receiveBudgetBytes = DEFAULT_RECEIVE_BUDGET_BYTES;
        private boolean multiplexSubscriptions = DEFAULT_MULTIPLEX_SUBSCRIPTIONS;
        /** Default: one per core (read when the builder is made, so it is not a constant). */
        private int handlerThreads = Runtime.getRuntime().availableProcessors();
        private ClientResources resources;

        private Builder(ClientTrust trust) {
            this.trust = required("trust", trust);
        }

        /** Broker address; default {@code 127.0.0.1:5000}. */
        public Builder broker(InetSocketAddress address) {
            this.broker = required("broker", address);
            return this;
        }

        /** Name the certificate must carry; default {@code localhost} for loopback, else the host. */
        public Builder serverName(String name) {
            this.serverName = required("serverName", name);
            return this;
        }

        /** Tenant to authenticate for; default {@code t1}. */
        public Builder tenant(String tenant) {
            this.tenant = required("tenant", tenant);
            return this;
        }

        /** Token presented in {@code auth} (never logged); default {@code dev} (any token works in dev mode). */
        public Builder token(String token) {
            this.token = required("token", token);
            return this;
        }

        /** QUIC settings; default {@link TransportConfig#defaults()} with a 15 s idle timeout. */
        public Builder transport(TransportConfig transport) {
            this.transport = required("transport", transport);
            return this;
        }

        /** Largest frame accepted from the broker; default 16 MiB. */
        public Builder maxFrameBytes(int bytes) {
            if (bytes < MIN_MAX_FRAME_BYTES) {
                throw new IllegalArgumentException("maxFrameBytes must be >= " + MIN_MAX_FRAME_BYTES + ", was " + bytes);
            }
            this.maxFrameBytes = bytes;
            return this;
        }

        /** How long connecting may take; default 10 s. */
        public Builder connectTimeout(Duration timeout) {
            this.connectTimeout = positive(timeout, "connectTimeout");
            return this;
        }

        /** How long a request (an acknowledged publish, a subscribe, an admin call) may wait; default 30 s. */
        public Builder requestTimeout(Duration timeout) {
            this.requestTimeout = positive(timeout, "requestTimeout");
            return this;
        }

        /** How often the connection is kept alive; default 5 s (well inside the 15 s idle timeout). */
        public Builder keepAlive(Duration interval) {
            this.keepAlive = positive(interval, "keepAlive");
            return this;
        }

        /**
         * Checkpoint {@code client_publish_queue}: payload bytes a publisher may have written but not yet
         * acknowledged (or, unacknowledged, not yet written); publishing beyond it waits. Default 4 MiB.
         */
        public Builder publishInflightBytes(long bytes) {
            this.publishInflightBytes = positive("publishInflightBytes", bytes);
            return this;
        }

        /**
         * Checkpoint {@code client_publish_queue}: limits in events and bytes per publisher and what a
         * publish does when they are reached. Default 16384 events / 4 MiB, {@link PublishQueuePolicy#BLOCK}.
         */
        public Builder publishQueue(int events, long bytes, PublishQueuePolicy policy) {
            positive("publishQueue events", events);
            positive("publishQueue bytes", bytes);
            this.publishQueuePolicy = required("publishQueue policy", policy);
            this.publishInflightEvents = events;
            this.publishInflightBytes = bytes;
            return this;
        }

        /**
         * Carry every subscription of the connection on one multiplexed session stream when the broker speaks
         * it (default true): one request per subscribe instead of a stream per shard, each batch sent once per
         * connection, and per-subscription credit for flow control. With it off (or an older broker) each
         * subscription has a control stream and one event stream per shard.
         */
        public Builder multiplexSubscriptions(boolean value) {
            this.multiplexSubscriptions = value;
            return this;
        }

        /**
         * Event loops and handler threads shared with other clients of this process ({@link ClientResources}),
         * instead of the client's own (the default, null). {@link #handlerThreads} does not apply then.
         */
        public Builder resources(ClientResources shared) {
            this.resources = shared;
            return this;
        }

        /**
         * Threads that run {@link SubscriptionHandler}s (default: one per core), shared by every handler of the
         * client: a handler runs on one of them at a time, in order, so handlers never need a thread each.
         */
        public Builder handlerThreads(int threads) {
            if (threads < 1) {
                throw new IllegalArgumentException("handlerThreads must be at least 1, was " + threads);
            }
            this.handlerThreads = threads;
            return this;
        }

        /**
         * Checkpoint {@code client_receive_queue}: events received but not yet taken by the application,
         * per subscription; default 8192 events / 16 MiB, policy {@link ReceivePolicy#BLOCK}.
         */
        public Builder receiveQueue(int events, long bytes, ReceivePolicy policy) {
            positive("receiveQueue events", events);
            positive("receiveQueue bytes", bytes);
            this.receivePolicy = required("receiveQueue policy", policy);
            this.receiveQueueEvents = events;
            this.receiveQueueBytes = bytes;
            return this;
        }

        /**
         * Checkpoint {@code client_receive_budget}: payload bytes all receive queues of the client may hold
         * together; default 256 MiB. When it is spent, a subscription holding more than its fair share (the
         * budget over the open subscriptions) applies its own {@link ReceivePolicy} as if its queue were full:
         * {@code block} stops reading (withholds credit), the drop policies drop with a
         * {@code client_queue_overflow} gap. See {@link FelixClient#receiveBudgetUsedBytes()}.
         */
        public Builder receiveBudgetBytes(long bytes) {
            if (bytes < 1) {
                throw new IllegalArgumentException("receiveBudgetBytes must be positive, was " + bytes);
            }
            this.receiveBudgetBytes = bytes;
            return this;
        }

        public ClientConfig build() {
            return new ClientConfig(this);
        }

        private static long positive(String name, long value) {
            if (value < 1) {
                throw new IllegalArgumentException(name + " must be positive, was " + value);
            }
            return value;
        }

        private static <T> T required(String name, T value) {
            if (value == null) {
                throw new IllegalArgumentException(name + " must not be null");
            }
            return value;
        }

        private static Duration positive(Duration d, String name) {
            if (d == null || d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(name + " must be positive, was " + d);
            }
            return d;
        }
    }
}
