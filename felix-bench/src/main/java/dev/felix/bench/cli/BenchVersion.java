package dev.felix.bench.cli;

import picocli.CommandLine;

/** {@code felix bench --version}: the version baked into felix-bench.jar ("development" when run from classes). */
final class BenchVersion implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
        String v = BenchVersion.class.getPackage().getImplementationVersion();
        return new String[] {"felix bench " + (v != null ? v : "development") + " (Java " + Runtime.version() + ")"};
    }
}
