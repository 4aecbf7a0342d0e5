package dev.felix.demos.divergence;

import dev.felix.demos.common.ArgCursor;
import dev.felix.demos.common.UsageException;
import java.util.ArrayList;
import java.util.List;

/** The {@code state-divergence} command line, read left to right. */
public final class DivergenceArgs {

    public static final String USAGE = """
            Felix demo: local state divergence

            Consumers hold a local copy of a config keyspace: built from a change stream,
            or (watch mode) mirrored from a cache. The last one (or the last N) stalls,
            recovers, and then publishing stops. Each mode shows what the stalled copies
            look like afterwards, whether they were told what they missed, and whether
            the publisher had to slow down.

              --rate N            changes published per second (default 400)
              --keys N            size of the config keyspace, <= 65536 (default 2000)
              --consumers N       consumer count, >= 2 (default 3)
              --stalled N         how many consumers stall, < consumers (default 1)
              --payload N         payload bytes (default 64)
              --queue-capacity N  broker subscriber queue depth; watch mode: each
                                  mirror's watch queue in the cache (default 512)
              --duration N        seconds per phase; a run is 5 phases (default 4)
              --mode M            %s; both = lossy and
                                  lossless; all = every mode (default all)
              --stream-window N   consumers' QUIC per-stream window, and the broker's
                                  in stream modes, bytes (default 16384)
              --nodes N           1: each mode on a fresh in-process broker (default);
                                  3: the watch mode on three felix server processes
                                  forming a cluster (needs --mode watch)
              --no-tui            plain text instead of the live terminal view
              -h, --help          this message
            """;

    private DivergenceArgs() {
    }

    /** The usage text, listing the modes that exist. */
    public static String usage() {
        List<String> names = new ArrayList<>();
        for (DivergenceMode m : DivergenceModes.available()) {
            names.add(m.name());
        }
        return String.format(USAGE, String.join(" | ", names));
    }

    /** Parsed arguments, or null when help was asked for. */
    public static DivergenceConfig parse(String... args) throws UsageException {
        DivergenceConfig d = DivergenceConfig.defaults();
        long rate = d.rate();
        int keys = d.keys();
        int consumers = d.consumers();
        int stalled = d.stalled();
        int payload = d.payloadBytes();
        int queue = d.queueCapacity();
        long phase = d.phaseSecs();
        var modes = d.modes();
        boolean live = d.live();
        long window = d.streamWindowBytes();
        int nodes = d.nodes();
        ArgCursor a = new ArgCursor(args);
        while (a.hasNext()) {
            String arg = a.next();
            switch (arg) {
                case "--rate" -> rate = a.longValue(arg, 1, 10_000_000);
                case "--keys" -> keys = a.intValue(arg, 1, 65_536); // the payload carries a 16-bit key
                case "--consumers" -> consumers = a.intValue(arg, 0, 1000);
                case "--stalled" -> stalled = a.intValue(arg, 1, 1000);
                case "--payload" -> payload = a.intValue(arg, 0, 1 << 20);
                case "--queue-capacity" -> queue = a.intValue(arg, 1, 1 << 30);
                case "--duration" -> phase = a.longValue(arg, 1, 3600);
                case "--mode" -> modes = DivergenceModes.parse(a.value(arg));
                case "--stream-window" -> window = a.longValue(arg, 1024, 1L << 30);
                case "--nodes" -> nodes = a.intValue(arg, 1, DivergenceConfig.CLUSTER_NODES);
                case "--no-tui" -> live = false;
                case "-h", "--help" -> {
                    return null;
                }
                default -> throw new UsageException("unknown argument: " + arg);
            }
        }
        if (consumers < 2) {
            throw new UsageException(
                    "--consumers must be at least 2 so a healthy copy can be compared against a diverged one");
        }
        if (stalled >= consumers) {
            throw new UsageException("--stalled must be less than --consumers (" + consumers
                    + ") so at least one healthy copy is left to compare against");
        }
        if (nodes != 1 && nodes != DivergenceConfig.CLUSTER_NODES) {
            throw new UsageException("--nodes must be 1 (one in-process broker) or " + DivergenceConfig.CLUSTER_NODES
                    + " (a cluster of felix server processes), got " + nodes);
        }
        if (nodes > 1 && !modes.equals(List.of(DivergenceModes.WATCH))) {
            throw new UsageException("--nodes " + nodes + " runs the watch mode only (the stream modes run on one"
                    + " in-process broker): add --mode watch");
        }
        return new DivergenceConfig(rate, keys, consumers, stalled, Math.max(payload, ChangePayload.HEADER_BYTES),
                queue, phase, modes, live, window, nodes);
    }
}
