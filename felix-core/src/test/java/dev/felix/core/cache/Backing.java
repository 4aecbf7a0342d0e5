package dev.felix.core.cache;

import dev.felix.core.StreamConfig;

/** The backing dimension of the test matrix. */
enum Backing {
    MEMORY, LOG_ON_COMMIT, LOG_PERIODIC, LOG_NONE;

    CacheConfig config() {
        return switch (this) {
            case MEMORY -> CacheConfig.memory();
            case LOG_ON_COMMIT -> CacheConfig.log(StreamConfig.Fsync.ON_COMMIT);
            case LOG_PERIODIC -> CacheConfig.log(StreamConfig.Fsync.PERIODIC);
            case LOG_NONE -> CacheConfig.log(StreamConfig.Fsync.NONE);
        };
    }

    /** Applies this backing to {@code c} (keeping its other settings). */
    CacheConfig apply(CacheConfig c) {
        CacheConfig b = config();
        return c.withBacking(b.backing()).withFsync(b.fsync());
    }

    boolean log() {
        return this != MEMORY;
    }
}
