package dev.felix.core.cache;

/**
 * One live entry of a cache, as a watcher's snapshot carries it.
 *
 * <p><b>Ownership:</b> {@code value} is the cache's own array, shared with the cache and every other
 * watcher: never modify it.
 *
 * @param key             the key
 * @param value           the value (shared; read only)
 * @param expiresAtMillis absolute expiry time in epoch milliseconds (the cache's clock), or
 *                        {@link #NEVER}; an entry past it reads as absent and its {@link Change.Op#EXPIRE}
 *                        change follows in the watch
 */
public record CacheEntry(String key, byte[] value, long expiresAtMillis) {

    /** {@code expiresAtMillis} of an entry without a TTL. */
    public static final long NEVER = Long.MAX_VALUE;
}
