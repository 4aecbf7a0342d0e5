package dev.felix.bench.common;

/**
 * Values of a benchmark's own {@code --name=value} options, checked with errors that name the option: what
 * {@code felix bench cluster} and {@code felix bench fanout} parse themselves (the other commands use picocli).
 */
public final class NamedValues {

    private NamedValues() {
    }

    /** {@code value}, or a usage error naming {@code name} when it is missing or empty. */
    public static String require(String name, String value) {
        if (value == null || value.isEmpty()) {
            throw new IllegalArgumentException(name + " needs a value (" + name + "=...)");
        }
        return value;
    }

    /** {@code value} as a whole number above 0, or a usage error naming {@code name} and what it got. */
    public static int positive(String name, String value) {
        int n;
        try {
            n = Integer.parseInt(require(name, value).trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " must be a whole number, not '" + value + "'");
        }
        if (n <= 0) {
            throw new IllegalArgumentException(name + " must be positive, not " + n);
        }
        return n;
    }
}
