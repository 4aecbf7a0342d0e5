package dev.felix.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.felix.examples.Quickstart;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's Java example is {@code dev.felix.examples.Quickstart}, verbatim: this test checks the
 * README's fenced block is that file character for character, and runs it against a real broker, so the
 * example always compiles and does what the README says.
 */
@Timeout(60)
class ReadmeExampleTest {

    static final Path ROOT = Path.of(System.getProperty("felix.repo.root", ".."));
    static final String SOURCE = "felix-server/src/test/java/dev/felix/examples/Quickstart.java";

    @TempDir
    Path dir;

    @Test
    void theReadmeQuotesTheExampleVerbatim() throws Exception {
        String readme = Files.readString(ROOT.resolve("README.md"));
        String marker = "<!-- " + SOURCE + " -->";
        int at = readme.indexOf(marker);
        assertThat(at).as("README.md has the marker " + marker).isPositive();
        int start = readme.indexOf("```java\n", at) + "```java\n".length();
        int end = readme.indexOf("```\n", start);
        assertThat(readme.substring(start, end)).isEqualTo(Files.readString(ROOT.resolve(SOURCE)));
    }

    @Test
    void theExampleRunsAgainstABroker() throws Exception {
        try (TestBroker broker = TestBroker.start(dir)) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            Quickstart.run(broker.server().quicAddress(), broker.server().certificateFile(),
                    new PrintStream(out, true, StandardCharsets.UTF_8));
            assertThat(out.toString(StandardCharsets.UTF_8)).isEqualTo("""
                    published at offset 0
                    published at offset 1
                    published at offset 2
                    event 0: order 1
                    event 1: order 2
                    event 2: order 3
                    mirror: eu = 10.0.0.1
                    change 1: us = 10.0.0.2
                    mirror: 2 keys
                    """);
        }
    }
}
