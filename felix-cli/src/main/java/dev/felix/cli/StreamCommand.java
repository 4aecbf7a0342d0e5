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
            description = "Create a stream (idempotent for the same definition).")
    static final class Create implements Callable<Integer> {
        @Parameters(paramLabel = "TENANT/NAMESPACE/STREAM")
        String stream;

        @Option(names = "--shards", defaultValue = "1", description = "number of shards (default ${DEFAULT-VALUE})")
        int shards;

        @Option(names = "--durable", description = "keep events in a log on disk")
        boolean durable;

        @Option(names = "--fsync", paramLabel = "on_commit|periodic|none",
                description = "durable: when the log is forced to disk (default periodic)")
        String fsync;

        @Option(names = "--retention-bytes", paramLabel = "N", description = "durable: keep at most N bytes per shard")
        Long retentionBytes;

        @Option(names = "--retention-age", paramLabel = "AGE", description = "durable: keep events this long (e.g. 7d, 12h, 30m)")
        String retentionAge;

        @Mixin
        ClientOptions client;

        @Override
        public Integer call() {
            StreamRef ref = parse(stream);
            Duration age = retentionAge == null ? null : parseAge(retentionAge);
            try (FelixClient c = client.connect(ref.tenant())) {
                StreamDescription d = c.streams().create(ref,
                        new StreamSpec(shards, durable, fsync, retentionBytes, age));
                print(d);
            }
            return 0;
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "List the streams of a tenant or namespace.")
    static final class ListStreams implements Callable<Integer> {
        @Parameters(paramLabel = "TENANT[/NAMESPACE]")
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

    @Command(name = "describe", mixinStandardHelpOptions = true, description = "Show a stream's definition and shards.")
    static final class Describe implements Callable<Integer> {
        @Parameters(paramLabel = "TENANT/NAMESPACE/STREAM")
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
        System.out.println("kind       " + (d.durable() ? "durable (fsync " + d.fsync() + ")" : "ephemeral"));
        System.out.println("shards     " + d.shards());
        if (d.retentionBytes() != null) {
            System.out.println("retention  " + Long.toUnsignedString(d.retentionBytes()) + " bytes per shard");
        }
        if (d.retentionAgeMs() != null) {
            System.out.println("retention  " + Duration.ofMillis(d.retentionAgeMs()));
        }
        if (d.shardInfo() != null) {
            System.out.printf("%-6s %14s %14s%n", "SHARD", "OLDEST", "NEXT");
            for (ShardInfo s : d.shardInfo()) {
                System.out.printf("%-6d %14s %14s%n", s.shard(), Long.toUnsignedString(s.baseOffset()),
                        Long.toUnsignedString(s.nextOffset()));
            }
        }
    }

    /** Parses 500ms, 45s, 30m, 12h, 7d. */
    static Duration parseAge(String text) {
        try {
            if (text.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(text.substring(0, text.length() - 2)));
            }
            long n = Long.parseLong(text.substring(0, text.length() - 1));
            return switch (text.charAt(text.length() - 1)) {
                case 's' -> Duration.ofSeconds(n);
                case 'm' -> Duration.ofMinutes(n);
                case 'h' -> Duration.ofHours(n);
                case 'd' -> Duration.ofDays(n);
                default -> throw new NumberFormatException();
            };
        } catch (RuntimeException e) {
            throw new Errors.UsageException("--retention-age expects a number with ms, s, m, h or d, got '" + text + "'");
        }
    }
}
