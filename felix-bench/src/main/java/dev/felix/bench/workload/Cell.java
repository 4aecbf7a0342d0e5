package dev.felix.bench.workload;

/**
 * One point of a workload's matrix.
 *
 * @param payload bytes after the 16-byte sequence/timestamp header of every message
 * @param fanout  subscribers, each on its own connection, each receiving every message
 */
public record Cell(int payload, int fanout) {

    public Cell {
        if (payload < 0 || fanout < 1) {
            throw new IllegalArgumentException("payload >= 0 and fanout >= 1, got " + payload + ", " + fanout);
        }
    }

    @Override
    public String toString() {
        return "payload=" + payload + " fanout=" + fanout;
    }
}
