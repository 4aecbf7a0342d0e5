package dev.felix.demos.divergence;

/**
 * The workload, bit-exact with upstream: per change, draw the key (one PRNG draw), take the next
 * global version, draw the value, record it in the authority, then hand it to the publisher.
 */
final class ChangeGenerator {

    private final Keyspace keyspace;
    private final Authority authority;
    private final XorShift64Star rng = new XorShift64Star(XorShift64Star.SEED);

    ChangeGenerator(Keyspace keyspace, Authority authority) {
        this.keyspace = keyspace;
        this.authority = authority;
    }

    ChangePayload next() {
        int key = keyspace.draw(rng);
        long version = authority.nextVersion();
        long value = rng.next();
        authority.set(key, version, value); // the truth moves first, whether or not the publish succeeds
        return new ChangePayload(key, version, value);
    }
}
