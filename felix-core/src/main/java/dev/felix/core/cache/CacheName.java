package dev.felix.core.cache;

import dev.felix.core.StreamName;
import java.util.Objects;

/**
 * The full name of a cache: {@code tenant/namespace/cache}.
 *
 * <p>Each part follows the same rule as a stream name ({@link StreamName#checkPart}): 1–128 characters
 * from {@code [A-Za-z0-9._-]}, neither {@code .} nor {@code ..}, so a name prints unambiguously and maps
 * safely to file names. Invalid names throw {@link IllegalArgumentException} naming the part and the rule.
 */
public record CacheName(String tenant, String namespace, String cache) {

    public CacheName {
        StreamName.checkPart("tenant", tenant);
        StreamName.checkPart("namespace", namespace);
        StreamName.checkPart("cache", cache);
    }

    /** Parses {@code tenant/namespace/cache}. */
    public static CacheName parse(String text) {
        Objects.requireNonNull(text, "text");
        String[] parts = text.split("/", -1);
        if (parts.length != 3) {
            throw new IllegalArgumentException("expected TENANT/NAMESPACE/CACHE, got '" + text + "'");
        }
        return new CacheName(parts[0], parts[1], parts[2]);
    }

    @Override
    public String toString() {
        return tenant + "/" + namespace + "/" + cache;
    }
}
