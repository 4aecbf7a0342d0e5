package dev.felix.demos.divergence;

/**
 * The workload's PRNG, bit-exact with upstream: xorshift64* on unsigned 64-bit arithmetic. A fixed
 * seed makes every run of every mode publish the same sequence of changes.
 */
final class XorShift64Star {

    /** Upstream's seed, {@code 0x5EED | 1}. */
    static final long SEED = 0x5EEDL | 1;

    private long state;

    XorShift64Star(long seed) {
        this.state = seed;
    }

    long next() {
        long x = state;
        x ^= x >>> 12;
        x ^= x << 25;
        x ^= x >>> 27;
        state = x;
        return x * 0x2545F4914F6CDD1DL;
    }
}
