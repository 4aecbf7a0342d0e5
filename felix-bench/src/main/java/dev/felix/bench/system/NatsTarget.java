package dev.felix.bench.system;

import dev.felix.bench.common.PeerProcess;
import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.JetStream;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.PushSubscribeOptions;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * NATS, with {@code nats-server} started by the harness on a free loopback port in a temporary directory,
 * reached through jnats, one connection per publisher and per subscriber.
 *
 * <ul>
 *   <li>{@code nats} / {@code nats-tls}: NATS core subjects. Confirmed publish = PUB then a flush round trip
 *       (PING/PONG: the server has processed the PUB and queued it to every subscriber); batch publish =
 *       PUBs into the client's write buffer. Core NATS has no backpressure: a subscriber that lags is cut
 *       off as a slow consumer, so the workload bounds what is in flight.</li>
 *   <li>{@code jetstream} / {@code jetstream-tls}: a JetStream stream with file storage and one replica per
 *       topic; confirmed publish = publish and wait for the PubAck (stored); batch publish = async publishes,
 *       at most {@link AckWindow#LIMIT} unacknowledged; subscribers are ordered push consumers (ack none,
 *       flow control) from the start of the stream. nats-server 2.9 syncs its files every 2 minutes, not
 *       per message: comparable to Felix's {@code periodic} / {@code none} fsync, not {@code on_commit}.</li>
 * </ul>
 * With TLS, the server presents a fresh self-signed certificate ({@link PeerTls}) that the clients trust.
 */
final class NatsTarget implements Target {

    static final String BINARY = "nats-server";
    private static final Duration START_TIMEOUT = Duration.ofSeconds(15);
    private static final Duration FLUSH_TIMEOUT = Duration.ofSeconds(30);
    /**
     * jnats's outgoing queue holds 5,000 messages by default and then blocks; the workload's own in-flight
     * window (8 MiB) is the bound that matters, so the queue is made large enough never to be it.
     */
    private static final int OUTGOING_QUEUE_MESSAGES = 1 << 20;

    private final String name;
    private final boolean jetStream;
    private final WorkDir dir;
    private final PeerProcess server;
    private final PeerTls tls;
    private final List<Connection> connections = new ArrayList<>();
    private final Set<String> streams = new HashSet<>();
    /** The first problem any connection reported (slow consumer, server error). */
    private final FirstProblem problems = new FirstProblem();

    private NatsTarget(String name, boolean jetStream, WorkDir dir, PeerProcess server, PeerTls tls) {
        this.name = name;
        this.jetStream = jetStream;
        this.dir = dir;
        this.server = server;
        this.tls = tls;
    }

    static TargetFactory factory(String name, boolean tls, boolean jetStream) {
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
                return NatsTarget.start(name, tls, jetStream);
            }
        };
    }

    static NatsTarget start(String name, boolean withTls, boolean jetStream) throws Exception {
        Path binary = PeerProcess.which(BINARY).orElseThrow(() -> new IllegalStateException(BINARY + " not installed"));
        WorkDir dir = WorkDir.create(name);
        try {
            int port = PeerProcess.freePort();
            List<String> command = new ArrayList<>(List.of(binary.toString(), "-a", "127.0.0.1", "-p",
                    Integer.toString(port)));
            PeerTls tls = null;
            if (withTls) {
                tls = PeerTls.create(dir.path().resolve("tls"));
                command.addAll(List.of("--tls", "--tlscert", tls.cert().toString(), "--tlskey", tls.key().toString()));
            }
            if (jetStream) {
                command.addAll(List.of("-js", "-sd", dir.path().resolve("jetstream").toString()));
            }
            PeerProcess server = PeerProcess.start(name, command, port, dir.path(), START_TIMEOUT);
            return new NatsTarget(name, jetStream, dir, server, tls);
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

    private Connection connect() throws Exception {
        Options.Builder b = new Options.Builder()
                .server((tls != null ? "tls" : "nats") + "://127.0.0.1:" + server.port())
                .connectionTimeout(Duration.ofSeconds(5))
                .noReconnect() // a lost connection fails the run rather than silently resending
                .maxMessagesInOutgoingQueue(OUTGOING_QUEUE_MESSAGES)
                .errorListener(problems);
        if (tls != null) {
            b.sslContext(tls.client());
        }
        Connection c = Nats.connect(b.build());
        synchronized (connections) {
            connections.add(c);
        }
        return c;
    }

    private void release(Connection c) throws InterruptedException {
        synchronized (connections) {
            connections.remove(c);
        }
        c.close();
    }

    /** JetStream: the stream holding {@code topic} (created on first use). */
    private void ensureStream(Connection c, String topic) throws Exception {
        if (jetStream && streams.add(topic)) {
            c.jetStreamManagement().addStream(StreamConfiguration.builder().name(topic).subjects(topic)
                    .storageType(StorageType.File).replicas(1).build());
        }
    }

    @Override
    public Target.Publisher publisher(String topic) throws Exception {
        Connection c = connect();
        ensureStream(c, topic);
        return jetStream ? new JetStreamPublisher(c, c.jetStream(), topic) : new CorePublisher(c, topic);
    }

    @Override
    public AutoCloseable subscribe(String topic, Handler handler) throws Exception {
        Connection c = connect();
        ensureStream(c, topic);
        Dispatcher d = c.createDispatcher();
        if (jetStream) {
            c.jetStream().subscribe(topic, d, m -> handler.onMessage(m.getData()), false,
                    PushSubscribeOptions.builder().ordered(true).build());
        } else {
            d.subscribe(topic, m -> handler.onMessage(m.getData()));
        }
        // SUB reaches the server before any later PUB from another connection only once it was processed:
        // a flush round trip makes sure of that.
        c.flush(FLUSH_TIMEOUT);
        return () -> release(c);
    }

    /** Fails the run with what a connection reported, if anything: sharper than the sequence check's count. */
    private void checkProblems() {
        String p = problems.get();
        if (p != null) {
            throw new IllegalStateException(name + ": " + p);
        }
    }


    @Override
    public void close() {
        List<Connection> open;
        synchronized (connections) {
            open = new ArrayList<>(connections);
            connections.clear();
        }
        for (Connection c : open) {
            try {
                c.close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        server.close();
        dir.close();
    }

    private final class CorePublisher implements Target.Publisher {
        private final Connection c;
        private final String subject;

        CorePublisher(Connection c, String subject) {
            this.c = c;
            this.subject = subject;
        }

        @Override
        public void publishConfirmed(byte[] message) throws Exception {
            c.publish(subject, message);
            c.flush(FLUSH_TIMEOUT);
        }

        @Override
        public void publishBatch(List<byte[]> messages) {
            for (byte[] m : messages) {
                c.publish(subject, m);
            }
        }

        @Override
        public void flush() throws Exception {
            c.flush(FLUSH_TIMEOUT);
            checkProblems();
        }

        @Override
        public void close() throws Exception {
            release(c);
        }
    }

    private final class JetStreamPublisher implements Target.Publisher {
        private final Connection c;
        private final JetStream js;
        private final String subject;
        private final AckWindow window = new AckWindow();

        JetStreamPublisher(Connection c, JetStream js, String subject) {
            this.c = c;
            this.js = js;
            this.subject = subject;
        }

        @Override
        public void publishConfirmed(byte[] message) throws Exception {
            js.publish(subject, message);
        }

        @Override
        public void publishBatch(List<byte[]> messages) throws Exception {
            window.reserve(messages.size());
            for (byte[] m : messages) {
                window.add(js.publishAsync(subject, m), 1);
            }
        }

        @Override
        public void flush() throws Exception {
            window.drain();
            checkProblems();
        }

        @Override
        public void close() throws Exception {
            release(c);
        }
    }
}
