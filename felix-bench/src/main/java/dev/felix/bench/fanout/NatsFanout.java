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
 * {@code tls}), or three of them routed into a cluster ({@code --nodes 3}) with connections spread over them,
 * reached through jnats: each connection one {@link Connection} with one {@link Dispatcher} holding
 * its subscriptions, set up by sending every SUB and then one flush round trip per connection. Core NATS drops
 * a slow consumer's messages (and may cut its connection): the sequence check counts both.
 */
final class NatsFanout implements FanoutSystem {

    static final String SUBJECT = "fanout";
    /** A subject of its own to learn when a cluster routes interest (never the benchmark's). */
    static final String PROBE = "fanout-probe";
    private static final Duration TIMEOUT = Duration.ofSeconds(120);

    /** One server, or the nodes of a cluster (routes between them on loopback). */
    private final List<PeerProcess> servers;
    private final PeerTls tls;
    private final List<Connection> connections = new ArrayList<>();
    private final List<Dispatcher> dispatchers = new ArrayList<>();
    private Connection publisher;
    private final FirstProblem problems = new FirstProblem();

    private NatsFanout(List<PeerProcess> servers, PeerTls tls) {
        this.servers = servers;
        this.tls = tls;
    }

    static NatsFanout start(Path dir, boolean withTls) throws Exception {
        return start(dir, withTls, 1);
    }

    /**
     * Starts {@code nodes} {@code nats-server} processes; more than one form a cluster (each routes to the others on
     * loopback), whose subscriber connections {@link #connect} spreads round-robin; the publisher uses the first.
     */
    static NatsFanout start(Path dir, boolean withTls, int nodes) throws Exception {
        Path binary = PeerProcess.which("nats-server").orElseThrow(
                () -> new IllegalStateException("nats-server not installed (run bench/peers/install.sh)"));
        PeerTls tls = withTls ? PeerTls.create(dir.resolve("tls")) : null;
        int[] client = new int[nodes];
        int[] route = new int[nodes];
        for (int i = 0; i < nodes; i++) {
            client[i] = PeerProcess.freePort();
            route[i] = PeerProcess.freePort();
        }
        List<PeerProcess> servers = new ArrayList<>();
        try {
            for (int i = 0; i < nodes; i++) {
                List<String> command = new ArrayList<>(List.of(binary.toString(), "-a", "127.0.0.1", "-p",
                        Integer.toString(client[i])));
                if (nodes > 1) {
                    List<String> routes = new ArrayList<>();
                    for (int j = 0; j < nodes; j++) {
                        if (j != i) {
                            routes.add("nats://127.0.0.1:" + route[j]);
                        }
                    }
                    command.addAll(List.of("-n", "n" + (i + 1), "--cluster_name", "fanout", "--cluster",
                            "nats://127.0.0.1:" + route[i], "--routes", String.join(",", routes)));
                }
                if (tls != null) {
                    command.addAll(List.of("--tls", "--tlscert", tls.cert().toString(), "--tlskey",
                            tls.key().toString()));
                }
                Path d = nodes > 1 ? dir.resolve("n" + (i + 1)) : dir;
                java.nio.file.Files.createDirectories(d);
                servers.add(PeerProcess.start(nodes > 1 ? "nats-n" + (i + 1) : "nats-server", command, client[i], d,
                        Duration.ofSeconds(15)));
            }
        } catch (Exception | Error e) {
            servers.forEach(PeerProcess::close);
            throw e;
        }
        NatsFanout n = new NatsFanout(servers, tls);
        try {
            n.publisher = n.open(0);
            return n;
        } catch (Exception | Error e) {
            n.close();
            throw e;
        }
    }

    private Connection open(int server) throws Exception {
        Options.Builder b = new Options.Builder()
                .server((tls != null ? "tls" : "nats") + "://127.0.0.1:" + servers.get(server).port())
                .connectionTimeout(Duration.ofSeconds(10))
                .noReconnect() // a lost connection is counted, not hidden by a reconnect
                .errorListener(problems);
        if (tls != null) {
            b.sslContext(tls.client());
        }
        return Nats.connect(b.build());
    }

    @Override
    public List<Long> brokerPids() {
        return servers.stream().map(PeerProcess::pid).toList();
    }

    @Override
    public boolean jvm() {
        return false;
    }

    @Override
    public void connect(int count) throws Exception {
        for (int i = 0; i < count; i++) { // round-robin over the servers
            Connection c = open(i % servers.size());
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
        if (servers.size() > 1) {
            awaitRoutedInterest();
        }
    }

    /**
     * A cluster forwards a subject to another server only once that server's interest reached it over the route,
     * which happens after the SUBs were processed there. Interest travels in order on a route, so a probe subscribed
     * on each server after its subscribers is seen from the publisher's server only after theirs: publish probes
     * until every server's probe received one.
     */
    private void awaitRoutedInterest() throws Exception {
        java.util.concurrent.CountDownLatch seen = new java.util.concurrent.CountDownLatch(servers.size());
        List<Connection> probes = new ArrayList<>();
        try {
            for (int i = 0; i < servers.size(); i++) {
                Connection probe = open(i);
                probes.add(probe);
                java.util.concurrent.atomic.AtomicBoolean once = new java.util.concurrent.atomic.AtomicBoolean();
                probe.createDispatcher(m -> {
                    if (once.compareAndSet(false, true)) {
                        seen.countDown();
                    }
                }).subscribe(PROBE);
                probe.flush(TIMEOUT);
            }
            long deadline = System.nanoTime() + TIMEOUT.toNanos();
            while (!seen.await(50, java.util.concurrent.TimeUnit.MILLISECONDS)) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the NATS cluster did not route interest within " + TIMEOUT);
                }
                publisher.publish(PROBE, new byte[0]);
            }
        } finally {
            for (Connection c : probes) {
                c.close();
            }
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
        servers.forEach(PeerProcess::close);
    }

}
