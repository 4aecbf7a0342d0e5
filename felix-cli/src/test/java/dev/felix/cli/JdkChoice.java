package dev.felix.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Which JDK the {@code felix} launcher should run on this machine, worked out independently of the script: {@code
 * java} on the PATH when it is 21 or later, else the newest JDK of 21 or later under {@code /usr/lib/jvm}, else
 * {@code java} on the PATH.
 */
final class JdkChoice {

    private static final Pattern VERSION = Pattern.compile("version \"(\\d+)");
    private static final Pattern RELEASE = Pattern.compile("(?m)^JAVA_VERSION=\"(\\d+)");

    private JdkChoice() {
    }

    /** The feature version ({@code 25}, {@code 17}) the launcher should report. */
    static int expectedFeature() throws IOException, InterruptedException {
        int onPath = onPath();
        if (onPath >= 21) {
            return onPath;
        }
        int best = onPath;
        Path jvms = Path.of("/usr/lib/jvm");
        if (Files.isDirectory(jvms)) {
            try (Stream<Path> homes = Files.list(jvms)) {
                for (Path home : homes.toList()) {
                    Path release = home.resolve("release");
                    if (!Files.isRegularFile(release) || !Files.isExecutable(home.resolve("bin").resolve("java"))) {
                        continue;
                    }
                    Matcher m = RELEASE.matcher(Files.readString(release, StandardCharsets.UTF_8));
                    if (m.find()) {
                        int feature = Integer.parseInt(m.group(1));
                        if (feature >= 21 && feature > best) {
                            best = feature;
                        }
                    }
                }
            }
        }
        return best;
    }

    private static int onPath() throws IOException, InterruptedException {
        Process p = new ProcessBuilder("java", "-version").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        Matcher m = VERSION.matcher(out);
        if (!m.find()) {
            throw new AssertionError("`java -version` printed no version: " + out);
        }
        return Integer.parseInt(m.group(1));
    }
}
