package dev.felix.demos.slowconsumer;

import dev.felix.demos.common.ArgCursor;
import dev.felix.demos.common.UsageException;

/** The {@code slow-consumer} command line, read left to right. */
public final class SlowConsumerArgs {

    private static final String USAGE = """
            Felix demo: slow-consumer isolation

            One stream, N dashboard consumers, one of which stalls. Runs under each subscriber
            queue policy and compares them.

              --rate N             target publish rate, messages/sec (default 20000)
              --subscribers N      consumer count, >= 2 (default 3)
              --payload N          payload bytes (default 256)
              --queue-capacity N   subscriber queue depth, broker and client (default 512)
              --duration N         seconds per phase; a run is 4 phases (default 5)
              --policy P           %s (default all)
              --no-tui             plain text output instead of the live terminal view
              -h, --help           this message
            """;

    private SlowConsumerArgs() {
    }

    public static String usage() {
        StringBuilder names = new StringBuilder();
        for (IsolationPolicy p : IsolationPolicies.available()) {
            names.append(p.name()).append(" | ");
        }
        return String.format(USAGE, names + "both | all");
    }

    /** Parsed arguments, or null when help was asked for. */
    public static SlowConsumerConfig parse(String... args) throws UsageException {
        SlowConsumerConfig d = SlowConsumerConfig.defaults();
        long rate = d.targetRate();
        int subscribers = d.subscribers();
        int payload = d.payloadBytes();
        int queue = d.queueCapacity();
        long phase = d.phaseSecs();
        var policies = d.policies();
        boolean live = d.live();
        ArgCursor a = new ArgCursor(args);
        while (a.hasNext()) {
            String arg = a.next();
            switch (arg) {
                case "--rate" -> rate = a.longValue(arg, 1, 10_000_000);
                case "--subscribers" -> subscribers = a.intValue(arg, 0, 1000);
                case "--payload" -> payload = a.intValue(arg, 0, 1 << 20);
                case "--queue-capacity" -> queue = a.intValue(arg, 1, 1 << 30);
                case "--duration" -> phase = a.longValue(arg, 1, 3600);
                case "--policy" -> policies = IsolationPolicies.parse(a.value(arg));
                case "--no-tui" -> live = false;
                case "-h", "--help" -> {
                    return null;
                }
                default -> throw new UsageException("unknown argument: " + arg);
            }
        }
        if (subscribers < 2) {
            throw new UsageException(
                    "--subscribers must be at least 2: the point is that one stalls and the others do not");
        }
        return new SlowConsumerConfig(rate, subscribers, Math.max(payload, TelemetryPayload.HEADER_BYTES), queue, phase,
                policies, live);
    }
}
