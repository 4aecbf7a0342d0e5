package dev.felix.demos.cluster;

import dev.felix.client.CacheRef;
import dev.felix.client.ClusterCache;
import dev.felix.client.FelixClientException;
import dev.felix.client.FelixCluster;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The fault run's cache writer: puts {@code k-<n> = cache-<n>} in order into a replicated log cache through the
 * cluster client, noting the change offset each acknowledgement named; a failed put is sent again. Every key is
 * written once, so afterwards each acknowledged key must read back with its value, and no two acknowledged puts
 * may share an offset (that would mean an acknowledged change was overwritten by a fork of the change log).
 */
final class CacheWriter implements Runnable {

    final String cache;
    private final FelixCluster client;
    /** Acknowledged offset by key. */
    final Map<String, Long> acked = new ConcurrentHashMap<>();
    /** Keys whose put failed or was retried after an unknown outcome: they may hold two offsets. */
    final java.util.Set<String> uncertain = ConcurrentHashMap.newKeySet();
    final AtomicLong failed = new AtomicLong();
    private volatile boolean stop;

    CacheWriter(FelixCluster client, String cache) {
        this.client = client;
        this.cache = cache;
    }

    @Override
    public void run() {
        try (ClusterCache c = client.cache(CacheRef.parse(cache))) {
            long n = 0;
            while (!stop) {
                String key = "k-" + n;
                try {
                    long offset = c.put(key, value(n), null);
                    if (c.lastWriteMayBeRepeated()) {
                        uncertain.add(key);
                    }
                    acked.put(key, offset);
                    n++;
                } catch (FelixClientException e) {
                    uncertain.add(key); // sent again below
                    failed.incrementAndGet();
                }
            }
        }
    }

    void stop() {
        stop = true;
    }

    static byte[] value(long n) {
        return ("cache-" + n).getBytes(StandardCharsets.UTF_8);
    }

    /**
     * What is wrong after the faults: an acknowledged key that reads back absent or with another value, two
     * acknowledged keys at one offset, or a mirror whose copy differs from what the leader serves.
     */
    List<String> check(Map<String, byte[]> mirrored) {
        List<String> found = new ArrayList<>();
        if (acked.isEmpty()) {
            found.add(cache + ": no put was acknowledged at all");
            return found;
        }
        Map<Long, String> byOffset = new HashMap<>();
        acked.forEach((key, offset) -> {
            String other = byOffset.put(offset, key);
            if (other != null) {
                found.add(cache + ": '" + key + "' and '" + other + "' were both acknowledged at offset " + offset);
            }
        });
        try (ClusterCache c = client.cache(CacheRef.parse(cache))) {
            for (String key : acked.keySet()) {
                long n = Long.parseLong(key.substring(2));
                Optional<byte[]> v = c.get(key);
                if (v.isEmpty() || !new String(v.get(), StandardCharsets.UTF_8).equals("cache-" + n)) {
                    found.add(cache + ": acknowledged '" + key + "' at " + acked.get(key) + " but read "
                            + v.map(b -> "'" + new String(b, StandardCharsets.UTF_8) + "'").orElse("nothing"));
                }
                byte[] m = mirrored.get(key);
                if (m == null || !new String(m, StandardCharsets.UTF_8).equals("cache-" + n)) {
                    found.add(cache + ": the mirror's copy of acknowledged '" + key + "' is "
                            + (m == null ? "missing" : "'" + new String(m, StandardCharsets.UTF_8) + "'"));
                }
            }
        } catch (FelixClientException e) {
            found.add(cache + ": reading it back failed: " + e.getMessage());
        }
        return found;
    }
}
