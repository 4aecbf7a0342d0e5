package dev.felix.cli;

import dev.felix.client.FelixClient;
import dev.felix.wire.CacheDescription;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** {@code felix cache list}. */
@Command(name = "list", mixinStandardHelpOptions = true, description = "List the caches of a tenant or namespace.")
final class CacheListCommand implements Callable<Integer> {

    @Parameters(paramLabel = "TENANT[/NAMESPACE]", description = "whose caches to list")
    String scope;

    @Mixin
    ClientOptions client;

    @Override
    public Integer call() {
        Scope s = Scope.parse(scope);
        try (FelixClient c = client.connect(s.tenant())) {
            List<CacheDescription> caches = c.caches().list(s.namespace());
            System.out.printf("%-40s %-8s %-10s %12s  %s%n", "CACHE", "BACKING", "TTL", "MAX ENTRIES", "CONSISTENCY");
            for (CacheDescription d : caches) {
                String ttl = d.ttlMs() == null ? "none" : d.ttlMs() % 1000 == 0 ? d.ttlMs() / 1000 + "s" : d.ttlMs() + "ms";
                // Absent from a broker that is not clustered: leader, the only consistency a single node has.
                System.out.printf("%-40s %-8s %-10s %12d  %s%n", d.tenantId() + "/" + d.namespace() + "/" + d.cache(),
                        d.backing(), ttl, d.maxEntries(), d.consistency() != null ? d.consistency() : "leader");
            }
            if (caches.isEmpty()) {
                System.out.println("(no caches)");
            }
        }
        return 0;
    }
}
