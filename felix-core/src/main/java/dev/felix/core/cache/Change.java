package dev.felix.core.cache;

import java.util.Locale;

/**
 * One change of a cache: every mutation, expiry and eviction gets the next offset of the cache's change
 * sequence (from 0, contiguous, assigned by the cache's single writer).
 *
 * <p><b>Ownership:</b> {@code value} is shared with the cache and every watcher: never modify it.
 * Equality of two changes compares {@code value} by reference (it is an array).
 *
 * @param offset          position in the cache's change sequence
 * @param key             the key changed
 * @param op              what happened
 * @param value           the new value for {@link Op#PUT}; null otherwise
 * @param expiresAtMillis for {@link Op#PUT}: absolute expiry (epoch ms) or {@link CacheEntry#NEVER};
 *                        otherwise {@link CacheEntry#NEVER}
 */
public record Change(long offset, String key, Op op, byte[] value, long expiresAtMillis) implements WatchItem {

    /** The kinds of change; a mirror applies PUT as "set" and the other three as "remove". */
    public enum Op {
        /** The key was set (created or overwritten; the TTL restarts). */
        PUT,
        /** The key was deleted by a client. */
        DELETE,
        /** The key's TTL ran out (found by a read or by the sweep). */
        EXPIRE,
        /** The key was evicted to keep the cache within {@code max_entries} (least recently used first). */
        EVICT;

        private final String wireName = name().toLowerCase(Locale.ROOT);

        /** The wire name, e.g. {@code expire}. */
        public String wireName() {
            return wireName;
        }

        /** Whether the key is gone after this change. */
        public boolean removes() {
            return this != PUT;
        }
    }

    /** The entry this change sets (PUT only). */
    public CacheEntry entry() {
        if (op != Op.PUT) {
            throw new IllegalStateException(op + " carries no entry");
        }
        return new CacheEntry(key, value, expiresAtMillis);
    }
}
