package dev.felix.core;

import java.util.Objects;

/**
 * The full name of a stream: {@code tenant/namespace/stream}.
 *
 * <p>Each part is 1–{@value #MAX_PART_LENGTH} characters from {@code [A-Za-z0-9._-]}, and neither
 * {@code .} nor {@code ..}, so a name prints unambiguously as {@code t/ns/s} and maps safely to file
 * names.
 */
public record StreamName(String tenant, String namespace, String stream) {

    /** Longest allowed tenant, namespace or stream name. */
    public static final int MAX_PART_LENGTH = 128;

    public StreamName {
        checkPart("tenant", tenant);
        checkPart("namespace", namespace);
        checkPart("stream", stream);
    }

    /** Parses {@code tenant/namespace/stream}. */
    public static StreamName parse(String text) {
        Objects.requireNonNull(text, "text");
        String[] parts = text.split("/", -1);
        if (parts.length != 3) {
            throw new IllegalArgumentException("expected TENANT/NAMESPACE/STREAM, got '" + text + "'");
        }
        return new StreamName(parts[0], parts[1], parts[2]);
    }

    /** Checks one name part; the message names the part and the rule it broke. */
    public static void checkPart(String what, String value) {
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException(what + " name must not be empty");
        }
        if (value.equals(".") || value.equals("..")) {
            throw new IllegalArgumentException(what + " name must not be '" + value + "'");
        }
        if (value.length() > MAX_PART_LENGTH) {
            throw new IllegalArgumentException(what + " name is longer than " + MAX_PART_LENGTH + " characters");
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '.' || c == '_' || c == '-';
            if (!ok) {
                throw new IllegalArgumentException(what + " name '" + value
                        + "' may only contain letters, digits, '.', '_' and '-'");
            }
        }
    }

    @Override
    public String toString() {
        return tenant + "/" + namespace + "/" + stream;
    }
}
