package dev.felix.bench.fanout;

import dev.felix.bench.common.PeerProcess;
import dev.felix.bench.system.FirstProblem;
import dev.felix.bench.system.PeerTls;
import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * NATS core: {@code nats-server} started on a free loopback port (with a fresh self-signed certificate when
 * {@code tls}), reached through jnats: each connection one {@link Connection} with one {@link Dispatcher} holding
 * its subscriptions, set up by sending every SUB and then one flush round trip per connection. Core NATS drops
 * a slow consumer's messages (and may cut its connection): the sequence check counts both.
 */
final class NatsFanout implements FanoutSystem {

    static final String SUBJECT = "fanout";
    private static final Duration TIMEOUT = Duration.ofSeconds(120);

    private final PeerProcess server;
    private final PeerTls tls;
    private final List<Connection> connections = new ArrayList<>();
    private final List<Dispatcher> dispatchers = new ArrayList<>();
    private Connection publisher;
    private final FirstProblem problems = new FirstProblem();

    private NatsFanout(PeerProcess server, PeerTls tls) {
        this.server = server;
        this.tls = tls;
    }

    static NatsFanout start(Path dir, boolean withTls) throws Exception {
        Path binary = PeerProcess.which("nats-server").orElseThrow(
                () -> new IllegalStateException("nats-server not installed (run bench/peers/install.sh)"));
        int port = PeerProcess.freePort();
        List<String> command = new ArrayList<>(List.of(binary.toString(), "-a", "127.0.0.1", "-p",
                Integer.toString(port)));
        PeerTls tls = null;
        if (withTls) {
            tls = PeerTls.create(dir.resolve("tls"));
            command.addAll(List.of("--tls", "--tlscert", tls.cert().toString(), "--tlskey", tls.key().toString()));
        }
        NatsFanout n = new NatsFanout(PeerProcess.start("nats-server", command, port, dir, Duration.ofSeconds(15)),
                tls);
        try {
            n.publisher = n.open();
            return n;
        } catch (Exception | Error e) {
            n.close();
            throw e;
        }
    }

    private Connection open() throws Exception {
        Options.Builder b = new Options.Builder()
                .server((tls != null ? "tls" : "nats") + "://127.0.0.1:" + server.port())
                .connectionTimeout(Duration.ofSeconds(10))
                .noReconnect() // a lost connection is counted, not hidden by a reconnect
                .errorListener(problems);
        if (tls != null) {
            b.sslContext(tls.client());
        }
        return Nats.connect(b.build());
    }

    @Override
    public long brokerPid() {
        return server.pid();
    }

    @Override
    public boolean jvm() {
        return false;
    }

    @Override
    public void connect(int count) throws Exception {
        for (int i = 0; i < count; i++) {
            Connection c = open();
            connections.add(c);
            dispatchers.add(c.createDispatcher());
        }
    }

    @Override
    public void subscribe(Deliveries deliveries) throws Exception {
        for (int i = 0; i < deliveries.subscribers(); i++) {
            int connection = i % connections.size();
            int sub = i;
            dispatchers.get(connection).subscribe(SUBJECT, m -> deliveries.received(sub, connection, m.getData()));
        }
        for (Connection c : connections) {
            c.flush(TIMEOUT); // the server has processed every SUB of this connection
        }
    }

    @Override
    public boolean publish(byte[] message) {
        if (problems.get() != null && publisher.getStatus() != Connection.Status.CONNECTED) {
            return false;
        }
        publisher.publish(SUBJECT, message);
        return true;
    }

    @Override
    public int lostConnections() {
        return (int) connections.stream().filter(c -> c.getStatus() != Connection.Status.CONNECTED).count();
    }

    @Override
    public String publishProblem() {
        return publisher.getStatus() == Connection.Status.CONNECTED ? null : "the publisher's connection is "
                + publisher.getStatus();
    }

    /** The first problem any connection reported (slow consumer, disconnection), or null. */
    String problem() {
        return problems.get();
    }

    @Override
    public void close() throws Exception {
        for (Connection c : connections) {
            c.close();
        }
        if (publisher != null) {
            publisher.close();
        }
        server.close();
    }

}
