package dev.felix.server;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * The version and git commit this build was made from, as the build recorded them in
 * {@code build-info.properties}: reported by {@code felix --version} and the {@code felix_build_info}
 * metric. Immutable.
 *
 * @param version the project version, or {@code development} when run from an IDE without the build step
 * @param commit  the abbreviated git commit, or {@code unknown} when the build did not run in a git checkout
 */
public record BuildInfo(String version, String commit) {

    private static final BuildInfo CURRENT = load();

    /** This build's. */
    public static BuildInfo current() {
        return CURRENT;
    }

    private static BuildInfo load() {
        Properties p = new Properties();
        try (InputStream in = BuildInfo.class.getResourceAsStream("build-info.properties")) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            // reported as development / unknown below
        }
        String version = p.getProperty("version", "").trim();
        String commit = p.getProperty("commit", "").trim();
        return new BuildInfo(version.isEmpty() ? "development" : version, commit.isEmpty() ? "unknown" : commit);
    }
}
