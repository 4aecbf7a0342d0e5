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
        description = {"Subscribe to a stream and print one line per event.",
                "",
                "Each event is printed as OFFSET<TAB>PAYLOAD (SHARD:OFFSET<TAB>PAYLOAD for a stream of several shards). Missed ranges are reported on stderr as '# gap ...'. Runs until interrupted unless --count or --idle-timeout ends it (exit status 3 for the timeout)."})
final class SubCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "TENANT/NAMESPACE/STREAM", description = "The stream to read.")
    String stream;

    @Option(names = "--from", paramLabel = "POSITION", defaultValue = "latest", converter = OptionTypes.From.class,
            description = "Where to start: earliest (everything the broker still holds), latest (new events"
                    + " only) or an OFFSET (the first offset to print). Default: ${DEFAULT-VALUE}.")
    StartPosition from;

    @Option(names = "--count", paramLabel = "N", converter = OptionTypes.Count.class,
            description = "Exit after N events. Default: run until interrupted.")
    Long count;

    @Option(names = "--shard", paramLabel = "N", converter = OptionTypes.ShardIndex.class,
            description = "Read shard N only. Default: every shard.")
    Integer shard;

    @Option(names = "--idle-timeout", paramLabel = "AGE", converter = OptionTypes.Age.class,
            description = "Exit with status 3 after this long without an event, e.g. 30s. Default: wait forever.")
    Duration idleTimeout;

    @Mixin
    ClientOptions client;

    @Override
    public Integer call() {
        StreamRef ref = StreamCommand.parse(stream);
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        try (FelixClient c = client.connect(ref.tenant());
                Subscription sub = c.subscribe(new SubscribeOptions(ref, from, shard, null, null, null, false))) {
            boolean multiShard = sub.shards().size() > 1;
            long seen = 0;
            long idleSince = System.nanoTime();
            while (count == null || seen < count) {
                Item item = sub.next(Duration.ofMillis(200));
                if (item == null) {
                    out.flush();
                    if (idleTimeout != null && System.nanoTime() - idleSince > idleTimeout.toNanos()) {
                        System.err.println("felix: no event for " + Units.duration(idleTimeout));
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
