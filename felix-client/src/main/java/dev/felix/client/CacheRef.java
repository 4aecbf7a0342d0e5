package dev.felix.client;

import java.util.Objects;

/** A cache's full name, {@code tenant/namespace/cache}. */
public record CacheRef(String tenant, String namespace, String cache) {

    public CacheRef {
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(cache, "cache");
    }

    /** Parses {@code tenant/namespace/cache}. */
    public static CacheRef parse(String text) {
        String[] parts = text.split("/", -1);
        if (parts.length != 3 || parts[0].isEmpty() || parts[1].isEmpty() || parts[2].isEmpty()) {
            throw new IllegalArgumentException("expected TENANT/NAMESPACE/CACHE, got '" + text + "'");
        }
        return new CacheRef(parts[0], parts[1], parts[2]);
    }

    @Override
    public String toString() {
        return tenant + "/" + namespace + "/" + cache;
    }
}
