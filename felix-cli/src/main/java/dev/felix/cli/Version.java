package dev.felix.cli;

import dev.felix.server.BuildInfo;
import picocli.CommandLine;

/** Reports the version and commit the build recorded ({@link BuildInfo}), and the Java runtime. */
final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
        BuildInfo b = BuildInfo.current();
        return new String[] {"felix " + b.version() + " (commit " + b.commit() + ", Java " + Runtime.version() + ")"};
    }
}
