package dev.felix.cli;

import dev.felix.client.Event;
import dev.felix.client.FelixClient;
import dev.felix.client.Gap;
import dev.felix.client.Item;
import dev.felix.client.StreamRef;
import dev.felix.client.SubscribeOptions;
import dev.felix.client.Subscription;
import dev.felix.wire.StartPosition;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code felix sub}: prints {@code offset<TAB>payload} per event; gaps go to stderr. */
@Command(name = "sub", mixinStandardHelpOptions = true,
        description = {"Subscribe to a stream and print one line per event: OFFSET<TAB>PAYLOAD (multi-shard",
            "streams: SHARD:OFFSET<TAB>PAYLOAD). Missed ranges are reported on stderr as '# gap ...'."})
final class SubCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "TENANT/NAMESPACE/STREAM", description = "the stream")
    String stream;

    @Option(names = "--from", paramLabel = "earliest|latest|OFFSET", defaultValue = "latest",
            description = "where to start (default ${DEFAULT-VALUE}); OFFSET is the first offset to print")
    String from;

    @Option(names = "--count", paramLabel = "N", description = "exit after N events")
    Long count;

    @Option(names = "--shard", paramLabel = "N", description = "read one shard only")
    Integer shard;

    @Option(names = "--idle-timeout", paramLabel = "SECONDS",
            description = "exit with status 3 after this long without an event (default: wait forever)")
    Long idleTimeout;

    @Mixin
    ClientOptions client;

    @Override
    public Integer call() {
        StreamRef ref;
        StartPosition start;
        try {
            ref = StreamRef.parse(stream);
            start = switch (from) {
                case "latest" -> new StartPosition.Latest();
                case "earliest" -> new StartPosition.Earliest();
                default -> new StartPosition.AtOffset(Long.parseLong(from));
            };
        } catch (NumberFormatException e) {
            throw new Errors.UsageException("--from expects earliest, latest or an offset, got '" + from + "'");
        } catch (IllegalArgumentException e) {
            throw new Errors.UsageException(e.getMessage());
        }
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        try (FelixClient c = client.connect(ref.tenant());
                Subscription sub = c.subscribe(new SubscribeOptions(ref, start, shard, null, null, null, false))) {
            boolean multiShard = sub.shards().size() > 1;
            long seen = 0;
            long idleSince = System.nanoTime();
            while (count == null || seen < count) {
                Item item = sub.next(Duration.ofMillis(200));
                if (item == null) {
                    out.flush();
                    if (idleTimeout != null && System.nanoTime() - idleSince > idleTimeout * 1_000_000_000L) {
                        System.err.println("felix: no event for " + idleTimeout + " s");
                        return 3;
                    }
                    continue;
                }
                idleSince = System.nanoTime();
                if (item instanceof Event e) {
                    out.print(multiShard ? e.shard() + ":" + e.offset() : String.valueOf(e.offset()));
                    out.print('\t');
                    out.println(new String(e.payload(), StandardCharsets.UTF_8));
                    seen++;
                    if (count != null && seen >= count) {
                        break;
                    }
                } else if (item instanceof Gap g) {
                    out.flush();
                    System.err.println("# gap shard " + g.shard() + " offsets " + g.from() + ".." + g.to()
                            + " (" + g.missed() + " missed: " + g.reason() + ")");
                }
            }
            out.flush();
        }
        return 0;
    }
}
