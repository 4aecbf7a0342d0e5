package dev.felix.bench.watch;

import dev.felix.client.CacheSpec;
import java.util.List;
import java.util.Map;

/** The systems {@code felix bench watch} knows, by name. */
public final class WatchSystems {

    /** The default comparison. */
    public static final List<String> DEFAULT = List.of("felix", "etcd", "nats-kv", "redis");
    /** Every name accepted; {@code felix-log} is a log-backed cache fsynced on every commit, etcd's durability. */
    public static final List<String> ALL = List.of("felix", "felix-log", "etcd", "nats-kv", "redis");

    private WatchSystems() {
    }

    /** The peer binary each system runs, overridable (tests name a missing one to see the skip). */
    static String defaultBinary(String system) {
        return switch (system) {
            case "etcd" -> "etcd";
            case "nats-kv" -> "nats-server";
            case "redis" -> "redis-server";
            default -> null;
        };
    }

    /**
     * The system called {@code name}.
     *
     * @param felixSettings broker settings for the Felix systems
     * @param binaries      peer binary overrides by system name (absent: the installed default)
     * @throws IllegalArgumentException for an unknown name, listing the known ones
     */
    public static WatchSystem byName(String name, Map<String, String> felixSettings, Map<String, String> binaries) {
        String binary = binaries.getOrDefault(name, defaultBinary(name));
        return switch (name) {
            case "felix" -> FelixWatchTarget.system(name, CacheSpec.memory(), felixSettings);
            case "felix-log" -> FelixWatchTarget.system(name, CacheSpec.log("on_commit"), felixSettings);
            case "etcd" -> EtcdWatchTarget.system(name, binary);
            case "nats-kv" -> NatsKvWatchTarget.system(name, binary);
            case "redis" -> RedisWatchTarget.system(name, binary);
            default -> throw new IllegalArgumentException("unknown system '" + name + "'; known: " + ALL);
        };
    }
}
