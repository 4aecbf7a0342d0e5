package dev.felix.cli;

import dev.felix.client.ClusterPublisher;
import dev.felix.client.FelixClient;
import dev.felix.client.FelixCluster;
import dev.felix.client.PublishAck;
import dev.felix.client.Publisher;
import dev.felix.client.StreamRef;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code felix pub}: publishes messages (arguments, or one per line of stdin). */
@Command(name = "pub", mixinStandardHelpOptions = true,
        description = {"Publish messages to a stream and wait for each acknowledgement.",
                "",
                "Each MESSAGE argument is one message; with none, each line of standard input is one. With --verbose, the shard and offset of each message go to stderr."})
final class PubCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "TENANT/NAMESPACE/STREAM",
            description = "The stream to publish to; in dev mode it is created on first use.")
    String stream;

    @Parameters(index = "1..*", paramLabel = "MESSAGE", arity = "0..*",
            description = "Messages to publish, one per argument. Default: one per line of standard input.")
    List<String> messages = List.of();

    @Option(names = "--key", paramLabel = "KEY",
            description = "Shard key: messages with one key go to one shard and keep their order."
                    + " Default: none (shards in turn).")
    String key;

    @Option(names = {"-v", "--verbose"}, description = "Print the shard and offset of each message to stderr.")
    boolean verbose;

    @Mixin
    ClientOptions client;

    @Override
    public Integer call() throws Exception {
        StreamRef ref = StreamCommand.parse(stream);
        if (client.brokers.size() > 1) {
            return publishToCluster(ref);
        }
        try (FelixClient c = client.connect(ref.tenant())) {
            Publisher publisher = c.publisher(ref);
            int count = 0;
            if (!messages.isEmpty()) {
                for (String m : messages) {
                    report(publisher.publishAsync(key, m.getBytes(StandardCharsets.UTF_8)).join());
                    count++;
                }
            } else {
                BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
                String line;
                while ((line = in.readLine()) != null) {
                    report(publisher.publishAsync(key, line.getBytes(StandardCharsets.UTF_8)).join());
                    count++;
                }
            }
            publisher.close();
            if (verbose) {
                System.err.println("published " + count + " message(s) to " + ref);
            }
        } catch (java.util.concurrent.CompletionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : e;
        }
        return 0;
    }

    /** Several --broker nodes: each message goes to its shard's leader, following redirects and failovers. */
    private int publishToCluster(StreamRef ref) throws java.io.IOException {
        int count = 0;
        try (FelixCluster cluster = client.cluster(ref.tenant()); ClusterPublisher publisher = cluster.publisher(ref)) {
            if (!messages.isEmpty()) {
                for (String m : messages) {
                    report(publisher.publish(key, m.getBytes(StandardCharsets.UTF_8)));
                    count++;
                }
            } else {
                BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
                String line;
                while ((line = in.readLine()) != null) {
                    report(publisher.publish(key, line.getBytes(StandardCharsets.UTF_8)));
                    count++;
                }
            }
        }
        if (verbose) {
            System.err.println("published " + count + " message(s) to " + ref);
        }
        return 0;
    }

    private void report(PublishAck ack) {
        if (verbose) {
            System.err.println("shard " + ack.shard() + " offset " + ack.firstOffset());
        }
    }
}
