package dev.felix.wire;

import static dev.felix.wire.TestSupport.hex;
import static dev.felix.wire.TestSupport.str;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Runs the upstream wire v1 conformance vectors (read-only, outside the repo) through the codec with
 * the four checks of wire.md §12, plus {@code .hex == frame_hex}, and checks that the project's own
 * golden frames ({@link GoldenFramesTest}) of the same names are byte for byte upstream's.
 *
 * <p>Location: env {@code FELIX_WIRE_VECTORS} — if set, the directory must exist, or every test here
 * fails saying where it looked (CI sets it: {@code .ci/run} refuses to run without the vectors); else
 * {@code ${felix.repo.root}/../shared/felix-wire-vectors} when it exists. In a lone clone with neither,
 * the upstream comparison has nothing to compare with; the same frames are then checked byte for byte
 * against the committed golden files alone (by {@link GoldenFramesTest}, and here by their presence).
 */
class ConformanceVectorsTest {

    /** The 13 upstream vectors; every one must be present and checked. */
    static final Set<String> EXPECTED = Set.of(
        "auth_ok", "auth_with_capabilities", "publish", "subscribe", "event", "cache_put", "cache_get",
        "cache_value", "ok", "error", "binary_publish_acked", "binary_publish_ack_ok", "binary_publish_ack_error");

    /**
     * The vectors directory: {@code env} if set (failing, with every place it looked, if it does not
     * exist), else the one beside the repository root if it exists, else empty.
     */
    static Optional<Path> locate(String env, String repoRoot) {
        if (env != null && !env.isBlank()) {
            Path p = Path.of(env).toAbsolutePath().normalize();
            if (Files.isDirectory(p)) {
                return Optional.of(p);
            }
            return fail("wire conformance vectors directory not found: $FELIX_WIRE_VECTORS=" + p
                + " is set but is not a directory (unset it to test against the committed golden frames only)");
        }
        if (repoRoot != null && !repoRoot.isBlank()) {
            Path p = Path.of(repoRoot).resolve("../shared/felix-wire-vectors").toAbsolutePath().normalize();
            if (Files.isDirectory(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    static Optional<Path> vectorsDir() {
        return locate(System.getenv("FELIX_WIRE_VECTORS"), System.getProperty("felix.repo.root"));
    }

    static List<Path> vectorFiles(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().endsWith(".json")).sorted().collect(Collectors.toList());
        }
    }

    @TestFactory
    Stream<DynamicTest> eachVector() throws IOException {
        Optional<Path> dir = vectorsDir();
        if (dir.isEmpty()) {
            // A lone clone: what can be checked without upstream's files is that each of their frames has
            // its committed golden twin, which GoldenFramesTest checks byte for byte.
            return Stream.of(DynamicTest.dynamicTest("no upstream vectors beside this checkout: golden twins present", () -> {
                for (String name : EXPECTED) {
                    assertThat(GoldenFramesTest.read(name)).as("golden/%s.hex", name).isNotEmpty();
                }
            }));
        }
        List<Path> files = vectorFiles(dir.get());
        assertThat(files).as("vector files").isNotEmpty();
        return files.stream().map(f -> DynamicTest.dynamicTest(f.getFileName().toString(), () -> check(f)));
    }

    @Test
    void allThirteenVectorsArePresentAndEveryFileIsChecked_andTheGoldenFramesAreUpstreamsBytes() throws Exception {
        Optional<Path> dir = vectorsDir();
        if (dir.isEmpty()) {
            assertThat(GoldenFrames.ALL.keySet()).containsAll(EXPECTED);
            return;
        }
        Set<String> checked = new TreeSet<>();
        for (Path f : vectorFiles(dir.get())) {
            String name = check(f);
            checked.add(name);
            if (GoldenFrames.ALL.containsKey(name)) {
                @SuppressWarnings("unchecked")
                Map<String, Object> v = (Map<String, Object>) TestSupport.parseTree(Files.readAllBytes(f));
                assertThat(hex(GoldenFramesTest.read(name))).as("golden/%s.hex equals upstream's frame", name)
                    .isEqualTo(v.get("frame_hex"));
            }
        }
        assertThat(checked).containsAll(EXPECTED);
        assertThat(checked).hasSizeGreaterThanOrEqualTo(13);
    }

    @Test
    void aSetButMissingDirectoryFailsAndSaysWhereItLooked_anAbsentOneIsEmpty() {
        assertThatThrownBy(() -> locate("/nonexistent/felix-vectors", null))
            .isInstanceOf(AssertionError.class)
            .hasMessageContaining("/nonexistent/felix-vectors");
        assertThatThrownBy(() -> locate("/nonexistent/felix-vectors", "/tmp"))
            .isInstanceOf(AssertionError.class)
            .hasMessageContaining("FELIX_WIRE_VECTORS");
        assertThat(locate(null, "/nonexistent-root/main")).isEmpty();
        assertThat(locate(null, null)).isEmpty();
    }

    /** All checks for one vector file; returns its name. */
    @SuppressWarnings("unchecked")
    static String check(Path file) throws Exception {
        Map<String, Object> v = (Map<String, Object>) TestSupport.parseTree(Files.readAllBytes(file));
        String name = (String) v.get("name");
        assertThat(name).as("name of %s", file).isNotNull();
        String kind = v.containsKey("kind") ? (String) v.get("kind") : "json_message";
        int flags = v.containsKey("flags") ? (int) TestSupport.u64(v.get("flags")) : 0;
        byte[] payload = hex((String) v.get("payload_hex"));
        byte[] frameBytes = hex((String) v.get("frame_hex"));

        // .hex repeats frame_hex (some files end with a newline: trim)
        Path hexFile = file.resolveSibling(file.getFileName().toString().replaceFirst("\\.json$", ".hex"));
        assertThat(Files.readString(hexFile, StandardCharsets.US_ASCII).trim())
            .as("%s.hex", name).isEqualTo(v.get("frame_hex"));
        if (v.containsKey("payload_json")) {
            assertThat(str(payload)).as("%s payload_json", name).isEqualTo(v.get("payload_json"));
        }

        // 1. framing the payload with flags gives frame_hex
        assertThat(hex(WireCodec.frame(flags, payload))).as("%s: encode frame", name).isEqualTo(hex(frameBytes));

        // 2. decoding frame_hex succeeds with those flags (and consumes it all)
        ByteBuffer in = ByteBuffer.wrap(frameBytes);
        Frame frame = WireCodec.readFrame(in, 64 * 1024);
        assertThat(frame.flags()).as("%s: flags", name).isEqualTo(flags);
        assertThat(in.hasRemaining()).as("%s: whole frame consumed", name).isFalse();
        assertThat(frame.payload()).isEqualTo(ByteBuffer.wrap(payload));

        // 3. by kind: decode, compare fields, re-encode byte for byte
        switch (kind) {
            case "json_message": {
                Message m = WireCodec.decodeJson(frame.payload());
                assertThat(WireCodec.decode(frame)).isEqualTo(m);
                assertThat(hex(WireCodec.encodeFrame(m))).as("%s: JSON re-encode", name).isEqualTo(hex(frameBytes));
                break;
            }
            case "binary_acked_publish_batch": {
                BinaryAckedPublishBatch b = WireCodec.decodeAckedPublishBatch(frame.payload());
                assertThat(b.requestId()).isEqualTo(TestSupport.u64(v.get("request_id")));
                assertThat(b.ackMode().wireName()).isEqualTo(v.get("ack_mode"));
                assertThat(b.batch().tenantId()).isEqualTo(v.get("tenant_id"));
                assertThat(b.batch().namespace()).isEqualTo(v.get("namespace"));
                assertThat(b.batch().stream()).isEqualTo(v.get("stream"));
                assertThat(b.batch().payloads().stream().map(TestSupport::str).collect(Collectors.toList()))
                    .isEqualTo(v.get("payloads_utf8"));
                assertThat(WireCodec.decodeAckedPublishPrefix(frame.payload()))
                    .isEqualTo(new AckedPublishPrefix(b.requestId(), b.ackMode()));
                assertThat(WireCodec.decode(frame)).isEqualTo(b);
                assertThat(hex(WireCodec.encodeFrame(b))).as("%s: re-encode", name).isEqualTo(hex(frameBytes));
                break;
            }
            case "binary_publish_ack": {
                BinaryPublishAck a = WireCodec.decodePublishAck(frame.payload());
                assertThat(a.requestId()).isEqualTo(TestSupport.u64(v.get("request_id")));
                assertThat(a.status().name().toLowerCase()).isEqualTo(v.get("status"));
                assertThat(a.message()).isEqualTo(v.get("message"));
                assertThat(WireCodec.decode(frame)).isEqualTo(a);
                assertThat(hex(WireCodec.encodeFrame(a))).as("%s: re-encode", name).isEqualTo(hex(frameBytes));
                break;
            }
            default:
                fail("vector %s has unknown kind %s", name, kind);
        }
        return name;
    }
}
