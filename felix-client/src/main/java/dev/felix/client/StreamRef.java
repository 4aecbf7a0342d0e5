package dev.felix.client;

import java.util.Objects;

/** A stream's full name, {@code tenant/namespace/stream}. */
public record StreamRef(String tenant, String namespace, String stream) {

    public StreamRef {
        Objects.requireNonNull(tenant, "tenant");
        Objects.requireNonNull(namespace, "namespace");
        Objects.requireNonNull(stream, "stream");
    }

    /** Parses {@code tenant/namespace/stream}. */
    public static StreamRef parse(String text) {
        String[] parts = text.split("/", -1);
        if (parts.length != 3 || parts[0].isEmpty() || parts[1].isEmpty() || parts[2].isEmpty()) {
            throw new IllegalArgumentException("expected TENANT/NAMESPACE/STREAM, got '" + text + "'");
        }
        return new StreamRef(parts[0], parts[1], parts[2]);
    }

    @Override
    public String toString() {
        return tenant + "/" + namespace + "/" + stream;
    }
}
