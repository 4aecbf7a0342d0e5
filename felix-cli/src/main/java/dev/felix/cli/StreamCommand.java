package dev.felix.cli;

import dev.felix.client.FelixClient;
import dev.felix.client.StreamRef;
import dev.felix.client.StreamSpec;
import dev.felix.wire.ShardInfo;
import dev.felix.wire.StreamDescription;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code felix stream create|list|describe}. */
@Command(name = "stream", mixinStandardHelpOptions = true, description = "Create, list, describe and delete streams.",
        subcommands = {StreamCommand.Create.class, StreamCommand.ListStreams.class, StreamCommand.Describe.class,
            StreamDeleteCommand.class})
final class StreamCommand implements Runnable {

    @picocli.CommandLine.Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    @Command(name = "create", mixinStandardHelpOptions = true,
            description = {"Create a stream (a no-op if it exists with this definition).",
                "",
                "Ephemeral streams keep recent events in memory; durable ones (--durable) keep them in a checksummed log on disk, within the retention bounds."})
    static final class Create implements Callable<Integer> {
        @Parameters(paramLabel = "TENANT/NAMESPACE/STREAM", description = "The stream to create.")
        String stream;

        @Option(names = "--shards", paramLabel = "N", defaultValue = "1", converter = OptionTypes.Shards.class,
                description = "Number of shards, 1 to " + OptionTypes.MAX_SHARDS + "; a key or round robin picks one"
                        + " per message. Default: ${DEFAULT-VALUE}.")
        int shards;

        @Option(names = "--durable", description = "Keep events in a log on disk. Default: ephemeral (memory only).")
        boolean durable;

        @Option(names = "--fsync", paramLabel = "POLICY", converter = OptionTypes.Fsync.class,
                description = "Durable only: when the log is forced to disk: on_commit (before each"
                        + " acknowledgement), periodic or none. Default: periodic.")
        String fsync;

        @Option(names = "--retention-bytes", paramLabel = "N", converter = OptionTypes.Bytes.class,
                description = "Durable only: keep at most N bytes per shard, deleting the oldest segments."
                        + " Default: no limit.")
        Long retentionBytes;

        @Option(names = "--retention-age", paramLabel = "AGE", converter = OptionTypes.Age.class,
                description = "Durable only: keep events this long, e.g. 7d, 12h, 30m. Default: no limit.")
        Duration retentionAge;

        @Option(names = "--replicas", paramLabel = "N", converter = OptionTypes.Replicas.class,
                description = "Cluster, durable only: copies of each shard (the leader's included), 1 to "
                        + dev.felix.core.StreamConfig.MAX_REPLICAS + ". Default: min(3, nodes).")
        Integer replicas;

        @Option(names = "--consistency", paramLabel = "MODE", converter = OptionTypes.Consistency.class,
                description = "Cluster, durable only: leader (acknowledged from the leader's log) or quorum"
                        + " (acknowledged once a majority of the replicas holds it). Default: leader.")
        String consistency;

        @Option(names = "--no-replay", description = "Ephemeral only: no subscriber ever needs a lost event again"
                + " (presence, live telemetry). A node relaying the stream counts what it loses and never fences"
                + " or closes a subscriber for it.")
        boolean noReplay;

        @Mixin
        ClientOptions client;

        @Override
        public Integer call() {
            StreamRef ref = parse(stream);
            if (!durable && (fsync != null || retentionBytes != null || retentionAge != null)) {
                throw new Errors.UsageException("--fsync, --retention-bytes and --retention-age apply to durable"
                        + " streams only: add --durable");
            }
            if (!durable && (replicas != null || consistency != null)) {
                throw new Errors.UsageException("--replicas and --consistency apply to durable streams only (an"
                        + " ephemeral stream is not replicated): add --durable");
            }
            if (durable && noReplay) {
                throw new Errors.UsageException("--no-replay applies to ephemeral streams only (a durable stream's"
                        + " subscribers can always replay from its log): drop --durable or --no-replay");
            }
            try (FelixClient c = client.connect(ref.tenant())) {
                StreamDescription d = c.streams().create(ref,
                        new StreamSpec(shards, durable, fsync, retentionBytes, retentionAge, consistency, replicas,
                                noReplay));
                print(d);
            }
            return 0;
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true,
            description = "List the streams of a tenant or of one of its namespaces.")
    static final class ListStreams implements Callable<Integer> {
        @Parameters(paramLabel = "TENANT[/NAMESPACE]", description = "The tenant, or one namespace of it.")
        String scope;

        @Mixin
        ClientOptions client;

        @Override
        public Integer call() {
            Scope where = Scope.parse(scope);
            try (FelixClient c = client.connect(where.tenant())) {
                List<StreamDescription> streams = c.streams().list(where.namespace());
                System.out.printf("%-40s %6s %-9s %s%n", "STREAM", "SHARDS", "KIND", "NEXT OFFSETS");
                for (StreamDescription d : streams) {
                    StringBuilder next = new StringBuilder();
                    if (d.shardInfo() != null) {
                        for (ShardInfo s : d.shardInfo()) {
                            next.append(next.length() == 0 ? "" : ",").append(Long.toUnsignedString(s.nextOffset()));
                        }
                    }
                    System.out.printf("%-40s %6d %-9s %s%n", d.tenantId() + "/" + d.namespace() + "/" + d.stream(),
                            d.shards(), d.durable() ? "durable" : "ephemeral", next);
                }
                if (streams.isEmpty()) {
                    System.out.println("(no streams)");
                }
            }
            return 0;
        }
    }

    @Command(name = "describe", mixinStandardHelpOptions = true,
            description = "Show a stream's definition and the offsets of each shard.")
    static final class Describe implements Callable<Integer> {
        @Parameters(paramLabel = "TENANT/NAMESPACE/STREAM", description = "The stream to describe.")
        String stream;

        @Mixin
        ClientOptions client;

        @Override
        public Integer call() {
            StreamRef ref = parse(stream);
            try (FelixClient c = client.connect(ref.tenant())) {
                print(c.streams().describe(ref));
            }
            return 0;
        }
    }

    static StreamRef parse(String text) {
        try {
            return StreamRef.parse(text);
        } catch (IllegalArgumentException e) {
            throw new Errors.UsageException(e.getMessage());
        }
    }

    static void print(StreamDescription d) {
        System.out.println("stream     " + d.tenantId() + "/" + d.namespace() + "/" + d.stream());
        System.out.println("kind       " + (d.durable() ? "durable (fsync " + d.fsync() + ")"
                : Boolean.TRUE.equals(d.noReplay()) ? "ephemeral, no_replay" : "ephemeral"));
        System.out.println("shards     " + d.shards());
        if (d.durable()) {
            System.out.println("retention  " + (d.retentionBytes() == null ? "no size limit"
                    : Long.toUnsignedString(d.retentionBytes()) + " bytes per shard") + ", "
                    + (d.retentionAgeMs() == null ? "no age limit" : Units.millis(d.retentionAgeMs())));
        }
        if (d.consistency() != null) {
            System.out.println("replicas   " + d.replicas() + ", consistency " + d.consistency());
        }
        if (d.shardInfo() != null) {
            boolean clustered = d.shardInfo().stream().anyMatch(s -> s.leader() != null);
            if (clustered) {
                System.out.printf("%-6s %14s %14s  %-10s %6s  %-20s %s%n", "SHARD", "OLDEST", "NEXT", "LEADER", "EPOCH",
                        "REPLICAS", "STATUS");
            } else {
                System.out.printf("%-6s %14s %14s%n", "SHARD", "OLDEST", "NEXT");
            }
            for (ShardInfo s : d.shardInfo()) {
                if (clustered) {
                    System.out.printf("%-6d %14s %14s  %-10s %6s  %-20s %s%n", s.shard(),
                            Long.toUnsignedString(s.baseOffset()), Long.toUnsignedString(s.nextOffset()),
                            s.leader() == null ? "-" : s.leader(), s.epoch() == null ? "-" : s.epoch(),
                            s.replicas() == null ? "-" : String.join(",", s.replicas()), s.status());
                } else {
                    System.out.printf("%-6d %14s %14s%n", s.shard(), Long.toUnsignedString(s.baseOffset()),
                            Long.toUnsignedString(s.nextOffset()));
                }
            }
        }
    }
}
