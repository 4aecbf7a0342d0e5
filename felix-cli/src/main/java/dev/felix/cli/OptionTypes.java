package dev.felix.cli;

import dev.felix.server.config.HostPort;
import dev.felix.wire.StartPosition;
import java.time.Duration;
import java.util.Locale;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * The value types of the CLI's options, each with its valid range, in one place. Every numeric option
 * and positional parameter names one of these as its {@code converter}, so picocli checks the range
 * while parsing: a value outside it is a usage error (exit status 2) that names the flag, the valid
 * range and the value given ({@code CliOptionsModelTest} checks that no numeric option goes without).
 *
 * <p>Stateless; picocli instantiates each converter class.
 */
final class OptionTypes {
    private OptionTypes() {
    }

    /** A whole number within {@code [min, max]}; the message names the range. */
    abstract static class Bounded implements ITypeConverter<Long> {
        private final long min;
        private final long max;

        Bounded(long min, long max) {
            this.min = min;
            this.max = max;
        }

        @Override
        public Long convert(String value) {
            return parse(value, min, max);
        }

        static long parse(String value, long min, long max) {
            long n;
            try {
                n = Long.parseLong(value.trim().replace("_", ""));
            } catch (NumberFormatException e) {
                throw new TypeConversionException("expected a whole number in " + range(min, max) + ", got '"
                        + value + "'");
            }
            if (n < min || n > max) {
                throw new TypeConversionException("must be within " + range(min, max) + ", got " + n);
            }
            return n;
        }

        static String range(long min, long max) {
            return "[" + min + ", " + (max == Long.MAX_VALUE ? "2^63-1" : Long.toString(max)) + "]";
        }
    }

    /** An int-typed variant of {@link Bounded}. */
    abstract static class BoundedInt implements ITypeConverter<Integer> {
        private final int min;
        private final int max;

        BoundedInt(int min, int max) {
            this.min = min;
            this.max = max;
        }

        @Override
        public Integer convert(String value) {
            return (int) Bounded.parse(value, min, max);
        }
    }

    /** How many events or changes to wait for: at least 1. */
    static final class Count extends Bounded {
        Count() {
            super(1, Long.MAX_VALUE);
        }
    }

    /** A shard index: 0 or more (the broker checks it against the stream's shard count). */
    static final class ShardIndex extends BoundedInt {
        ShardIndex() {
            super(0, Integer.MAX_VALUE);
        }
    }

    /** Largest shard count a stream can be created with. */
    static final int MAX_SHARDS = dev.felix.core.StreamConfig.MAX_SHARDS;

    /** A stream's shard count. */
    static final class Shards extends BoundedInt {
        Shards() {
            super(1, MAX_SHARDS);
        }
    }

    /** A byte budget: at least 1 (omit the option for no limit). */
    static final class Bytes extends Bounded {
        Bytes() {
            super(1, Long.MAX_VALUE);
        }
    }

    /** A cache capacity in entries. */
    static final class Entries extends Bounded {
        Entries() {
            super(1, Integer.MAX_VALUE);
        }
    }

    /** Whole seconds, at least 1. */
    static final class Seconds extends Bounded {
        Seconds() {
            super(1, 365L * 24 * 3600);
        }
    }

    /** Where a subscription starts: {@code earliest}, {@code latest} or an offset (0 or more). */
    static final class From implements ITypeConverter<StartPosition> {
        @Override
        public StartPosition convert(String value) {
            return switch (value) {
                case "latest" -> new StartPosition.Latest();
                case "earliest" -> new StartPosition.Earliest();
                default -> {
                    try {
                        yield new StartPosition.AtOffset(Bounded.parse(value, 0, Long.MAX_VALUE));
                    } catch (TypeConversionException e) {
                        throw new TypeConversionException("expected earliest, latest or an offset in [0, 2^63-1], got '"
                                + value + "'");
                    }
                }
            };
        }
    }

    /**
     * A positive length of time written with a unit: {@code 500ms}, {@code 45s}, {@code 30m}, {@code 12h},
     * {@code 7d}; at most 100 years.
     */
    static final class Age implements ITypeConverter<Duration> {
        static final Duration MAX = Duration.ofDays(36_500);

        @Override
        public Duration convert(String value) {
            String text = value.trim().toLowerCase(Locale.ROOT);
            int unitAt = 0;
            while (unitAt < text.length() && (Character.isDigit(text.charAt(unitAt)) || text.charAt(unitAt) == '-')) {
                unitAt++;
            }
            String number = text.substring(0, unitAt);
            String unit = text.substring(unitAt);
            if (number.isEmpty() || unit.isEmpty()) {
                throw new TypeConversionException("expected a number with a unit (ms, s, m, h or d), e.g. 30s or 7d;"
                        + " got '" + value + "'");
            }
            long n;
            try {
                n = Long.parseLong(number);
            } catch (NumberFormatException e) {
                throw new TypeConversionException("expected a number with a unit (ms, s, m, h or d), got '" + value + "'");
            }
            if (n <= 0) {
                throw new TypeConversionException("must be more than 0, got '" + value + "'");
            }
            Duration d;
            try {
                d = switch (unit) {
                    case "ms" -> Duration.ofMillis(n);
                    case "s" -> Duration.ofSeconds(n);
                    case "m" -> Duration.ofMinutes(n);
                    case "h" -> Duration.ofHours(n);
                    case "d" -> Duration.ofDays(n);
                    default -> throw new TypeConversionException("unknown unit '" + unit
                            + "': use ms, s, m, h or d (e.g. 30s, 7d); got '" + value + "'");
                };
            } catch (ArithmeticException e) {
                d = MAX.plusDays(1);
            }
            if (d.compareTo(MAX) > 0) {
                throw new TypeConversionException("must be at most 36500d, got '" + value + "'");
            }
            return d;
        }
    }

    /** {@code HOST:PORT}. */
    static final class Address implements ITypeConverter<HostPort> {
        @Override
        public HostPort convert(String value) {
            try {
                return HostPort.parse(value);
            } catch (IllegalArgumentException e) {
                throw new TypeConversionException(e.getMessage());
            }
        }
    }

    /** A SHA-256 certificate fingerprint: 64 hex digits, colons optional (as {@code felix server} prints it). */
    static final class Fingerprint implements ITypeConverter<String> {
        @Override
        public String convert(String value) {
            String hex = value.replace(":", "");
            if (hex.length() != 64 || !hex.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
                throw new TypeConversionException("a SHA-256 fingerprint is 64 hex digits (colons optional), as"
                        + " 'felix server' prints it on its 'cert' line; got '" + value + "'");
            }
            return value;
        }
    }

    /** One of a fixed set of words. */
    abstract static class Choice implements ITypeConverter<String> {
        private final java.util.List<String> choices;

        Choice(String... choices) {
            this.choices = java.util.List.of(choices);
        }

        @Override
        public String convert(String value) {
            if (!choices.contains(value)) {
                throw new TypeConversionException("expected " + String.join(", ", choices.subList(0, choices.size() - 1))
                        + " or " + choices.get(choices.size() - 1) + ", got '" + value + "'");
            }
            return value;
        }
    }

    /** When a log is forced to disk. */
    static final class Fsync extends Choice {
        Fsync() {
            super("on_commit", "periodic", "none");
        }
    }

    /** When a replicated stream acknowledges a batch. */
    static final class Consistency extends Choice {
        Consistency() {
            super("leader", "quorum");
        }
    }

    /** Copies of each shard of a replicated stream. */
    static final class Replicas extends BoundedInt {
        Replicas() {
            super(1, dev.felix.core.StreamConfig.MAX_REPLICAS);
        }
    }

    /** Where a cache keeps its entries. */
    static final class Backing extends Choice {
        Backing() {
            super("memory", "log");
        }
    }
}
