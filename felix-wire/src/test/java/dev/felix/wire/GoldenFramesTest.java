package dev.felix.wire;

import static dev.felix.wire.TestSupport.hex;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The committed golden frames ({@code src/test/resources/golden/*.hex}) against this project's codec,
 * byte for byte, in any checkout: encoding each {@link GoldenFrames} message gives exactly its file,
 * and decoding the file gives the message back. Needs nothing outside the repository.
 */
class GoldenFramesTest {

    static final Path DIR = Path.of(System.getProperty("felix.golden.dir", "src/test/resources/golden"));

    /** Reads a committed golden frame (hex, one line). */
    static byte[] read(String name) throws IOException {
        return hex(Files.readString(DIR.resolve(name + ".hex"), StandardCharsets.US_ASCII).trim());
    }

    @TestFactory
    Stream<DynamicTest> eachGoldenFrame() throws IOException {
        if (Boolean.getBoolean("felix.golden.write")) {
            Files.createDirectories(DIR);
            for (Map.Entry<String, WirePayload> e : GoldenFrames.ALL.entrySet()) {
                Files.writeString(DIR.resolve(e.getKey() + ".hex"), hex(WireCodec.encodeFrame(e.getValue())) + "\n",
                        StandardCharsets.US_ASCII);
            }
        }
        return GoldenFrames.ALL.entrySet().stream().map(e -> DynamicTest.dynamicTest(e.getKey(), () -> {
            byte[] golden = read(e.getKey());
            assertThat(hex(WireCodec.encodeFrame(e.getValue()))).as("%s: encode", e.getKey()).isEqualTo(hex(golden));
            ByteBuffer in = ByteBuffer.wrap(golden);
            Frame frame = WireCodec.readFrame(in, 64 * 1024);
            assertThat(in.hasRemaining()).as("%s: one whole frame", e.getKey()).isFalse();
            assertThat(WireCodec.decode(frame)).as("%s: decode", e.getKey()).isEqualTo(e.getValue());
        }));
    }

    @Test
    void theCommittedFilesAreExactlyTheCatalogue() throws IOException {
        Set<String> files;
        try (Stream<Path> s = Files.list(DIR)) {
            files = s.map(p -> p.getFileName().toString()).collect(Collectors.toCollection(TreeSet::new));
        }
        Set<String> expected = GoldenFrames.ALL.keySet().stream().map(n -> n + ".hex")
                .collect(Collectors.toCollection(TreeSet::new));
        assertThat(files).as("golden files: no stale and no missing frame").isEqualTo(expected);
        assertThat(GoldenFrames.ALL.keySet()).as("every upstream vector has its golden twin")
                .containsAll(ConformanceVectorsTest.EXPECTED);
        assertThat(GoldenFrames.ALL.values().stream().map(p -> p.getClass()).distinct().count())
                .as("message kinds covered").isGreaterThanOrEqualTo(30);
    }
}
