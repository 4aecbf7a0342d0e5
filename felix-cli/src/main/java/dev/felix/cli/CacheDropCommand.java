package dev.felix.cli;

import dev.felix.client.CacheRef;
import dev.felix.client.FelixClient;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code felix cache drop}. */
@Command(name = "drop", mixinStandardHelpOptions = true,
        description = {"Drop a cache and its data.", "", "Refused while it has watchers, unless --force."})
final class CacheDropCommand implements Callable<Integer> {

    @Parameters(paramLabel = "TENANT/NAMESPACE/CACHE", description = "the cache to drop")
    String cache;

    @Option(names = "--force", description = "end its watches if it has any (default: refuse)")
    boolean force;

    @Mixin
    ClientOptions client;

    @Override
    public Integer call() {
        CacheRef ref = CacheCommand.parse(cache);
        try (FelixClient c = client.connect(ref.tenant())) {
            c.caches().drop(ref, force);
        }
        System.out.println("dropped cache " + ref);
        return 0;
    }
}
