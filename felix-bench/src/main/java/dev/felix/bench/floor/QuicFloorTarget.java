package dev.felix.bench.floor;

import dev.felix.bench.common.CpuClock;
import dev.felix.bench.system.Target;
import dev.felix.bench.system.TargetFactory;
import dev.felix.client.ClientConfig;
import dev.felix.server.config.ConfigLoader;
import dev.felix.transport.ClientTrust;
import dev.felix.transport.TlsMaterial;
import dev.felix.transport.TransportConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * {@code quic-floor}: the {@link FloorServer} in this JVM and one {@link FloorConnection} per publisher and per
 * subscriber, with the transport settings a default broker and the SDK use. No backpressure of its own (like NATS
 * core): the workload bounds what it has in flight. See the package documentation for what it leaves out.
 */
public final class QuicFloorTarget implements Target {

    /** The system's name in {@code --systems}. */
    public static final String NAME = "quic-floor";

    private static final Predicate<String> SERVER_THREADS = n -> n.startsWith(FloorServer.THREADS);

    private final FloorServer server;
    private final ClientTrust trust;
    private final List<FloorConnection> open = new ArrayList<>();

    private QuicFloorTarget(FloorServer server, ClientTrust trust) {
        this.server = server;
        this.trust = trust;
    }

    public static TargetFactory factory() {
        return new TargetFactory() {
            @Override
            public String name() {
                return NAME;
            }

            @Override
            public String unavailable() {
                return null; // in-process: always available
            }

            @Override
            public Target start() throws Exception {
                TlsMaterial tls = TlsMaterial.generateSelfSigned(List.of());
                return new QuicFloorTarget(FloorServer.start(brokerTransport(), tls),
                        ClientTrust.certificates(tls.chain()));
            }
        };
    }

    /** The transport settings of a broker started with its defaults, as the benchmark's Felix broker is. */
    static TransportConfig brokerTransport() throws Exception {
        return ConfigLoader.load(null, Map.of(), Map.of("quic_bind", "127.0.0.1:0", "http_bind", "127.0.0.1:0"))
                .transportConfig();
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public boolean backpressure() {
        return false;
    }

    @Override
    public boolean brokerInThisProcess() {
        return true;
    }

    @Override
    public long brokerCpuNanos() {
        return CpuClock.threads(SERVER_THREADS);
    }

    @Override
    public long brokerAllocatedBytes() {
        return CpuClock.allocatedBytes(SERVER_THREADS);
    }

    @Override
    public Publisher publisher(String topic) throws Exception {
        return track(FloorConnection.open(server.address(), ClientConfig.DEFAULT_TRANSPORT, trust,
                FloorFrames.PUBLISH, topic, null));
    }

    @Override
    public AutoCloseable subscribe(String topic, Handler handler) throws Exception {
        return track(FloorConnection.open(server.address(), ClientConfig.DEFAULT_TRANSPORT, trust,
                FloorFrames.SUBSCRIBE, topic, handler));
    }

    private FloorConnection track(FloorConnection c) {
        synchronized (open) {
            open.add(c);
        }
        return c;
    }

    @Override
    public void close() {
        List<FloorConnection> all;
        synchronized (open) {
            all = new ArrayList<>(open);
            open.clear();
        }
        all.forEach(FloorConnection::close);
        server.close();
    }
}
