package dev.felix.wire;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Keeps docs/wire.md honest: every JSON example and every framed hex example round-trips exactly. */
class DocsExamplesTest {

    static String doc() throws Exception {
        String root = System.getProperty("felix.repo.root");
        if (root == null) {
            return fail("system property felix.repo.root is unset (run through Maven)");
        }
        Path p = Path.of(root).resolve("docs/wire.md").toAbsolutePath().normalize();
        if (!Files.isRegularFile(p)) {
            return fail("docs/wire.md not found at " + p);
        }
        return Files.readString(p, StandardCharsets.UTF_8);
    }

    @Test
    void everyJsonExampleIsExactlyWhatTheEncoderWrites() throws Exception {
        List<String> lines = new ArrayList<>();
        Matcher block = Pattern.compile("```json\\n(.*?)```", Pattern.DOTALL).matcher(doc());
        while (block.find()) {
            for (String line : block.group(1).split("\n")) {
                if (!line.isBlank()) {
                    lines.add(line);
                }
            }
        }
        EnumSet<MessageType> seen = EnumSet.noneOf(MessageType.class);
        for (String line : lines) {
            Message m = WireCodec.decodeJson(line.getBytes(StandardCharsets.UTF_8));
            assertThat(new String(WireCodec.encodeJson(m), StandardCharsets.UTF_8)).as("docs example").isEqualTo(line);
            seen.add(m.type());
        }
        assertThat(seen).as("every message type has an example in docs/wire.md").isEqualTo(EnumSet.allOf(MessageType.class));
    }

    @Test
    void everyFramedHexExampleDecodesAndReEncodes() throws Exception {
        Matcher hex = Pattern.compile("`(464c5831[0-9a-f |]+)`").matcher(doc());
        int n = 0;
        while (hex.find()) {
            byte[] frame = TestSupport.hex(hex.group(1));
            if (frame.length == FrameHeader.HEADER_LENGTH) {
                continue; // a header shown on its own, followed by its JSON in the text
            }
            WirePayload p = WireCodec.decode(WireCodec.readFrame(ByteBuffer.wrap(frame), FrameHeader.DEFAULT_MAX_FRAME_BYTES));
            assertThat(WireCodec.encodeFrame(p)).as(hex.group(1)).isEqualTo(frame);
            n++;
        }
        assertThat(n).isGreaterThanOrEqualTo(3);
    }
}
