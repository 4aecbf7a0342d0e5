package dev.felix.cli;

import dev.felix.client.FelixClient;
import dev.felix.client.StreamRef;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code felix stream delete}. */
@Command(name = "delete", mixinStandardHelpOptions = true,
        description = {"Delete a stream and its data.", "", "Refused while it has subscribers, unless --force."})
final class StreamDeleteCommand implements Callable<Integer> {

    @Parameters(paramLabel = "TENANT/NAMESPACE/STREAM", description = "the stream to delete")
    String stream;

    @Option(names = "--force", description = "end its subscriptions if it has any (default: refuse)")
    boolean force;

    @Mixin
    ClientOptions client;

    @Override
    public Integer call() {
        StreamRef ref = StreamCommand.parse(stream);
        try (FelixClient c = client.connect(ref.tenant())) {
            c.streams().delete(ref, force);
        }
        System.out.println("deleted stream " + ref);
        return 0;
    }
}
