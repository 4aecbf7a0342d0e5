package dev.felix.cli;

import picocli.CommandLine;

/** Reports the version baked into the jar (or "development" when run from classes). */
final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
        String v = FelixCommand.class.getPackage().getImplementationVersion();
        return new String[] {"felix " + (v != null ? v : "development") + " (Java " + Runtime.version() + ")"};
    }
}
