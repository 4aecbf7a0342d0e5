package dev.felix.server.hostile;

import dev.felix.wire.FrameHeader;
import dev.felix.wire.WireCodec;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/** Builders for well-formed and deliberately malformed Felix frames, byte by byte. */
final class HostileBytes {
    private HostileBytes() {
    }

    /** A 12-byte header with arbitrary fields ({@code length} as a u32). */
    static byte[] header(int magic, int version, int flags, long length) {
        return ByteBuffer.allocate(FrameHeader.HEADER_LENGTH).putInt(magic).putShort((short) version)
                .putShort((short) flags).putInt((int) length).array();
    }

    /** A valid header for {@code flags} and {@code length}. */
    static byte[] header(int flags, long length) {
        return header(FrameHeader.MAGIC, FrameHeader.VERSION, flags, length);
    }

    /** A frame whose header is correct for {@code payload}. */
    static byte[] frame(int flags, byte[] payload) {
        return WireCodec.frame(flags, payload);
    }

    /** A JSON frame (flags 0) carrying {@code text} verbatim. */
    static byte[] json(String text) {
        return frame(0, text.getBytes(StandardCharsets.UTF_8));
    }

    static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.write(p, 0, p.length);
        }
        return out.toByteArray();
    }

    /** The names part of a binary publish batch: three str16 followed by a u32 count. */
    static byte[] batchHead(String tenant, String namespace, String stream, long count) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (String s : new String[] {tenant, namespace, stream}) {
            byte[] b = s.getBytes(StandardCharsets.UTF_8);
            out.write(b.length >> 8);
            out.write(b.length);
            out.write(b, 0, b.length);
        }
        out.writeBytes(ByteBuffer.allocate(4).putInt((int) count).array());
        return out.toByteArray();
    }

    /** A blob32: u32 length then the bytes. */
    static byte[] blob(byte[] data) {
        return ByteBuffer.allocate(4 + data.length).putInt(data.length).put(data).array();
    }

    /** The 9-byte prefix of an acked binary publish batch. */
    static byte[] ackedPrefix(long requestId, int ackMode) {
        return ByteBuffer.allocate(9).putLong(requestId).put((byte) ackMode).array();
    }
}
