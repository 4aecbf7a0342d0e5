package dev.felix.client;

import dev.felix.transport.ClientTrust;
import dev.felix.transport.TransportConfig;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Objects;

/**
 * How a {@link FelixClient} connects and behaves. Build with {@link #builder(ClientTrust)}; every
 * default is documented on the builder method that changes it.
 */
public final class ClientConfig {

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
        private InetSocketAddress broker = new InetSocketAddress("127.0.0.1", 5000);
        private String serverName;
        private final ClientTrust trust;
        private String tenant = "t1";
        private String token = "dev";
        /** The client's QUIC idle timeout: a broker that vanished without closing is noticed within it. */
        private TransportConfig transport = TransportConfig.defaults().withIdleTimeout(Duration.ofSeconds(15));
        private int maxFrameBytes = 16 << 20;
        private Duration connectTimeout = Duration.ofSeconds(10);
        private Duration requestTimeout = Duration.ofSeconds(30);
        private Duration keepAlive = Duration.ofSeconds(5);
        private long publishInflightBytes = 4L << 20;
        private int publishInflightEvents = 16_384;
        private PublishQueuePolicy publishQueuePolicy = PublishQueuePolicy.BLOCK;
        private int receiveQueueEvents = 8192;
        private long receiveQueueBytes = 16L << 20;
        private ReceivePolicy receivePolicy = ReceivePolicy.BLOCK;
        private long receiveBudgetBytes = 256L << 20;
        private boolean multiplexSubscriptions = true;
        private int handlerThreads = Runtime.getRuntime().availableProcessors();

        private Builder(ClientTrust trust) {
            this.trust = Objects.requireNonNull(trust, "trust");
        }

        /** Broker address; default {@code 127.0.0.1:5000}. */
        public Builder broker(InetSocketAddress address) {
            this.broker = Objects.requireNonNull(address, "address");
            return this;
        }

        /** Name the certificate must carry; default {@code localhost} for loopback, else the host. */
        public Builder serverName(String name) {
            this.serverName = Objects.requireNonNull(name, "name");
            return this;
        }

        /** Tenant to authenticate for; default {@code t1}. */
        public Builder tenant(String tenant) {
            this.tenant = Objects.requireNonNull(tenant, "tenant");
            return this;
        }

        /** Token presented in {@code auth} (never logged); default {@code dev} (any token works in dev mode). */
        public Builder token(String token) {
            this.token = Objects.requireNonNull(token, "token");
            return this;
        }

        /** QUIC settings; default {@link TransportConfig#defaults()} with a 15 s idle timeout. */
        public Builder transport(TransportConfig transport) {
            this.transport = Objects.requireNonNull(transport, "transport");
            return this;
        }

        /** Largest frame accepted from the broker; default 16 MiB. */
        public Builder maxFrameBytes(int bytes) {
            if (bytes < 1024) {
                throw new IllegalArgumentException("maxFrameBytes must be >= 1024, was " + bytes);
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
            if (bytes < 1) {
                throw new IllegalArgumentException("publishInflightBytes must be positive, was " + bytes);
            }
            this.publishInflightBytes = bytes;
            return this;
        }

        /**
         * Checkpoint {@code client_publish_queue}: limits in events and bytes per publisher and what a
         * publish does when they are reached. Default 16384 events / 4 MiB, {@link PublishQueuePolicy#BLOCK}.
         */
        public Builder publishQueue(int events, long bytes, PublishQueuePolicy policy) {
            if (events < 1 || bytes < 1) {
                throw new IllegalArgumentException("publish queue limits must be positive");
            }
            this.publishInflightEvents = events;
            this.publishInflightBytes = bytes;
            this.publishQueuePolicy = java.util.Objects.requireNonNull(policy, "policy");
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
         * Threads that run {@link SubscriptionHandler}s (default: one per core), shared by every handler of the
         * client: a handler runs on one of them at a time, in order, so handlers never need a thread each.
         */
        public Builder handlerThreads(int threads) {
            if (threads < 1) {
                throw new IllegalArgumentException("handler_threads must be at least 1, was " + threads);
            }
            this.handlerThreads = threads;
            return this;
        }

        /**
         * Checkpoint {@code client_receive_queue}: events received but not yet taken by the application,
         * per subscription; default 8192 events / 16 MiB, policy {@link ReceivePolicy#BLOCK}.
         */
        public Builder receiveQueue(int events, long bytes, ReceivePolicy policy) {
            if (events < 1 || bytes < 1) {
                throw new IllegalArgumentException("receive queue limits must be positive");
            }
            this.receiveQueueEvents = events;
            this.receiveQueueBytes = bytes;
            this.receivePolicy = Objects.requireNonNull(policy, "policy");
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

        private static Duration positive(Duration d, String name) {
            if (d == null || d.isNegative() || d.isZero()) {
                throw new IllegalArgumentException(name + " must be positive, was " + d);
            }
            return d;
        }
    }
}
