package dev.felix.cli;

import dev.felix.client.FelixClient;
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
        description = {"Publish messages to a stream: each argument is one message; with none, each line of",
            "standard input is one. Every message is acknowledged; offsets go to stderr with --verbose."})
final class PubCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "TENANT/NAMESPACE/STREAM", description = "the stream")
    String stream;

    @Parameters(index = "1..*", paramLabel = "MESSAGE", description = "messages (default: read stdin lines)")
    List<String> messages = List.of();

    @Option(names = "--key", paramLabel = "KEY", description = "shard key: messages with one key keep their order")
    String key;

    @Option(names = {"-v", "--verbose"}, description = "print the shard and offset of each message to stderr")
    boolean verbose;

    @Mixin
    ClientOptions client;

    @Override
    public Integer call() throws Exception {
        StreamRef ref;
        try {
            ref = StreamRef.parse(stream);
        } catch (IllegalArgumentException e) {
            throw new Errors.UsageException(e.getMessage());
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

    private void report(PublishAck ack) {
        if (verbose) {
            System.err.println("shard " + ack.shard() + " offset " + ack.firstOffset());
        }
    }
}
