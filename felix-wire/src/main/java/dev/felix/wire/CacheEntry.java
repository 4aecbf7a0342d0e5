package dev.felix.wire;

import java.util.Arrays;
import java.util.Objects;

/**
 * One entry of a {@code watch_snapshot} (extension, {@link Capabilities#CACHE_EXT}).
 * JSON object {@code {"key":str,"value":b64,"expires_at_ms"?:u64}}, keys in that order.
 *
 * <p>Like the messages, it takes the {@code byte[]} without copying, compares contents in
 * {@code equals} and prints the length only in {@code toString}.
 *
 * @param key         cache key
 * @param value       value bytes (base64 on the wire); required
 * @param expiresAtMs u64 absolute expiry, epoch ms, or null for none
 */
public record CacheEntry(String key, byte[] value, Long expiresAtMs) {

    /** @throws NullPointerException if {@code key} or {@code value} is null */
    public CacheEntry {
        Objects.requireNonNull(key, "key");
        Objects.requireNonNull(value, "value");
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CacheEntry e && key.equals(e.key) && Arrays.equals(value, e.value)
            && Objects.equals(expiresAtMs, e.expiresAtMs);
    }

    @Override
    public int hashCode() {
        return Objects.hash(key, Arrays.hashCode(value), expiresAtMs);
    }

    @Override
    public String toString() {
        return "CacheEntry[key=" + key + ", value=" + Bytes.describe(value) + ", expiresAtMs="
            + Bytes.u64(expiresAtMs) + "]";
    }
}
