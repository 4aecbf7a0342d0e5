package dev.felix.demos.divergence;

/**
 * The config keyspace: key names for the report, and the Zipf-ish weight table the generator draws
 * keys from. Hot keys are rewritten often and so heal themselves; a long tail of cold keys is written
 * once or twice, which is where a lost change stays wrong.
 */
final class Keyspace {

    private static final String[] NAMED = {
        "cluster/membership", "routing/table", "policy/authz", "policy/residency", "quota/tenant-limits",
        "cert/rotation", "flag/new-checkout", "flag/beta-ui", "service/discovery", "config/log-level",
    };

    /** Heaviest weight a key can have in the table. */
    static final int MAX_WEIGHT = 64;

    private final int keys;
    private final int[] table;

    Keyspace(int keys) {
        this.keys = keys;
        this.table = weightTable(keys);
    }

    int size() {
        return keys;
    }

    int tableLength() {
        return table.length;
    }

    /** A key drawn from the table with one PRNG draw (unsigned modulo, as upstream). */
    int draw(XorShift64Star rng) {
        return table[(int) Long.remainderUnsigned(rng.next(), table.length)];
    }

    /** {@code weight = clamp(keys / (idx + 1), 1, 64)} (integer division); key idx appears weight times. */
    static int[] weightTable(int keys) {
        int length = 0;
        for (int idx = 0; idx < keys; idx++) {
            length += weight(keys, idx);
        }
        int[] t = new int[length];
        int at = 0;
        for (int idx = 0; idx < keys; idx++) {
            for (int w = weight(keys, idx); w > 0; w--) {
                t[at++] = idx;
            }
        }
        return t;
    }

    private static int weight(int keys, int idx) {
        return Math.max(1, Math.min(MAX_WEIGHT, keys / (idx + 1)));
    }

    static String name(int idx) {
        return idx < NAMED.length ? NAMED[idx] : String.format("config/key-%04d", idx);
    }
}
