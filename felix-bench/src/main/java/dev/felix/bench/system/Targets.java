package dev.felix.bench.system;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The systems a benchmark can run, by name. */
public final class Targets {

    /**
     * Pub/sub systems, Felix first: Felix (always TLS 1.3 over QUIC), NATS core and Redis pub/sub, each
     * with and without TLS, so that both the like-for-like (TLS) ratio and each peer's TLS tax are shown.
     */
    public static final List<String> ALL = List.of("felix", "nats-tls", "nats", "redis-tls", "redis");

    /**
     * Durable systems, Felix first: durable streams with fsync {@code periodic} (the default) and
     * {@code on_commit}, and NATS JetStream file storage with and without TLS.
     */
    public static final List<String> DURABLE = List.of("felix-durable", "felix-durable-sync", "jetstream-tls",
            "jetstream");

    /**
     * The transport alone, with nothing of a broker: {@code quic-floor} ({@link
     * dev.felix.bench.floor.QuicFloorTarget}), asked for by name beside {@code felix} to tell the transport's and
     * the machine's share of a figure from the broker's.
     */
    public static final String FLOOR = dev.felix.bench.floor.QuicFloorTarget.NAME;

    /** Every name {@link #byName} knows. */
    public static final List<String> KNOWN;

    static {
        List<String> known = new ArrayList<>(ALL);
        known.addAll(DURABLE);
        known.add(FLOOR);
        KNOWN = List.copyOf(known);
    }

    private Targets() {
    }

    /**
     * Factories for {@code names}, in order; {@code brokerSettings} apply to Felix brokers only. An unknown
     * name throws, listing the known ones.
     */
    public static List<TargetFactory> byNames(List<String> names, Map<String, String> brokerSettings) {
        List<TargetFactory> out = new ArrayList<>();
        for (String n : names) {
            out.add(byName(n, brokerSettings));
        }
        return out;
    }

    public static TargetFactory byName(String name, Map<String, String> brokerSettings) {
        return switch (name) {
            case "felix" -> FelixTarget.factory(brokerSettings);
            case "felix-durable" -> FelixTarget.durableFactory(name, "periodic", brokerSettings);
            case "felix-durable-sync" -> FelixTarget.durableFactory(name, "on_commit", brokerSettings);
            case "nats" -> NatsTarget.factory(name, false, false);
            case "nats-tls" -> NatsTarget.factory(name, true, false);
            case "jetstream" -> NatsTarget.factory(name, false, true);
            case "jetstream-tls" -> NatsTarget.factory(name, true, true);
            case "redis" -> RedisTarget.factory(name, false);
            case "redis-tls" -> RedisTarget.factory(name, true);
            case FLOOR -> dev.felix.bench.floor.QuicFloorTarget.factory();
            default -> throw new IllegalArgumentException("unknown system '" + name + "'; known: "
                    + String.join(", ", KNOWN));
        };
    }
}
