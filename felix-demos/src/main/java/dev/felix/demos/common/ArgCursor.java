package dev.felix.demos.common;

/**
 * Reads demo arguments left to right, the way upstream's hand-written parsers do: a flag takes the
 * next argument as its value, or the text after {@code =} when written {@code --flag=value} (as every
 * other {@code felix} command accepts); a later flag overrides an earlier one.
 */
public final class ArgCursor {

    private final String[] args;
    private int index;

    public ArgCursor(String[] args) {
        java.util.List<String> split = new java.util.ArrayList<>();
        for (String a : args) {
            int eq = a.indexOf('=');
            if (a.startsWith("--") && eq > 2) {
                split.add(a.substring(0, eq)); // --flag=value reads as --flag value
                split.add(a.substring(eq + 1));
            } else {
                split.add(a);
            }
        }
        this.args = split.toArray(String[]::new);
    }

    public boolean hasNext() {
        return index < args.length;
    }

    public String next() {
        return args[index++];
    }

    /** The value after {@code flag}; {@code missing value for <flag>} if there is none. */
    public String value(String flag) throws UsageException {
        if (!hasNext()) {
            throw new UsageException("missing value for " + flag);
        }
        return next();
    }

    /** A whole number within {@code [min, max]}. */
    public long longValue(String flag, long min, long max) throws UsageException {
        String text = value(flag);
        long v;
        try {
            v = Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new UsageException("invalid value for " + flag + ": '" + text + "' is not a whole number");
        }
        if (v < min || v > max) {
            throw new UsageException("invalid value for " + flag + ": must be within [" + min + ", " + max
                    + "], was " + v);
        }
        return v;
    }

    public int intValue(String flag, int min, int max) throws UsageException {
        return (int) longValue(flag, min, max);
    }
}
