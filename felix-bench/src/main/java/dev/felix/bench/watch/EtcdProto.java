package dev.felix.bench.watch;

import io.grpc.MethodDescriptor;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The few etcd v3 gRPC messages the watch benchmark needs, encoded and decoded by hand (protobuf wire
 * format: tag = field << 3 | wire type; varints; length-delimited bytes). Field numbers are those of
 * etcd's {@code rpc.proto} and {@code kv.proto} (3.4 and later are the same for these):
 *
 * <pre>
 * PutRequest         key=1 bytes, value=2 bytes
 * RangeRequest       key=1 bytes, range_end=2 bytes
 * RangeResponse      header=1 ResponseHeader, kvs=2 repeated KeyValue
 * ResponseHeader     revision=3 int64
 * KeyValue           key=1 bytes, mod_revision=3 int64, value=5 bytes
 * WatchRequest       create_request=1 WatchCreateRequest (oneof)
 * WatchCreateRequest key=1 bytes, range_end=2 bytes, start_revision=3 int64
 * WatchResponse      header=1, watch_id=2, created=3 bool, canceled=4 bool, compact_revision=5,
 *                    cancel_reason=6 string, events=11 repeated Event
 * Event              type=1 enum (PUT=0, DELETE=1), kv=2 KeyValue
 * </pre>
 *
 * Why by hand: the standard Java client, jetcd (0.8.x), runs on Vert.x 4.5's gRPC client, which is built
 * on Netty 4.1 (projects using it pin Netty 4.1.x), while this build's BOM forces 4.2.18 on every
 * {@code io.netty} artifact — not a combination Vert.x 4.5 supports. grpc-java's {@code
 * grpc-netty-shaded} carries its own relocated Netty, so the etcd peer still speaks native gRPC over
 * HTTP/2 — the path etcd's own clients use — with no clash. The v3 JSON gateway (the other way round the
 * conflict) was not used: its extra hop inside etcd and its JSON/base64 would make etcd look slower than
 * its real clients see it.
 */
final class EtcdProto {

    private EtcdProto() {
    }

    /** Raw bytes in, raw bytes out: the messages are built and parsed here. */
    static final MethodDescriptor.Marshaller<byte[]> BYTES = new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(byte[] value) {
            return new ByteArrayInputStream(value);
        }

        @Override
        public byte[] parse(InputStream stream) {
            try {
                return stream.readAllBytes();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    };

    static final MethodDescriptor<byte[], byte[]> PUT = unary("etcdserverpb.KV/Put");
    static final MethodDescriptor<byte[], byte[]> RANGE = unary("etcdserverpb.KV/Range");
    static final MethodDescriptor<byte[], byte[]> WATCH = MethodDescriptor.<byte[], byte[]>newBuilder()
            .setType(MethodDescriptor.MethodType.BIDI_STREAMING).setFullMethodName("etcdserverpb.Watch/Watch")
            .setRequestMarshaller(BYTES).setResponseMarshaller(BYTES).build();

    private static MethodDescriptor<byte[], byte[]> unary(String name) {
        return MethodDescriptor.<byte[], byte[]>newBuilder().setType(MethodDescriptor.MethodType.UNARY)
                .setFullMethodName(name).setRequestMarshaller(BYTES).setResponseMarshaller(BYTES).build();
    }

    // ------------------------------------------------------------------ requests

    static byte[] putRequest(byte[] key, byte[] value) {
        Writer w = new Writer();
        w.bytes(1, key);
        w.bytes(2, value);
        return w.toByteArray();
    }

    static byte[] rangeRequest(byte[] key, byte[] rangeEnd) {
        Writer w = new Writer();
        w.bytes(1, key);
        w.bytes(2, rangeEnd);
        return w.toByteArray();
    }

    static byte[] watchCreateRequest(byte[] key, byte[] rangeEnd, long startRevision) {
        Writer create = new Writer();
        create.bytes(1, key);
        create.bytes(2, rangeEnd);
        create.varint(3, startRevision);
        Writer w = new Writer();
        w.bytes(1, create.toByteArray());
        return w.toByteArray();
    }

    /** The end of the range of keys starting with {@code prefix}: the prefix with its last byte + 1. */
    static byte[] prefixEnd(byte[] prefix) {
        byte[] end = Arrays.copyOf(prefix, prefix.length);
        for (int i = end.length - 1; i >= 0; i--) {
            if (end[i] != (byte) 0xff) {
                end[i]++;
                return Arrays.copyOf(end, i + 1);
            }
        }
        return new byte[] {0}; // all 0xff: to the end of the keyspace
    }

    // ------------------------------------------------------------------ responses

    record KeyValue(byte[] key, byte[] value, long modRevision) {
    }

    record Range(long revision, List<KeyValue> kvs) {
    }

    /** A watch response; {@code events} holds PUTs only, {@code deletes} counts the others. */
    record WatchResponse(long watchId, boolean created, boolean canceled, String cancelReason, long compactRevision,
            List<KeyValue> events, int deletes) {
    }

    static Range parseRange(byte[] b) {
        Reader r = new Reader(b);
        long revision = 0;
        List<KeyValue> kvs = new ArrayList<>();
        while (r.more()) {
            int tag = r.tag();
            switch (tag >>> 3) {
                case 1 -> revision = parseHeaderRevision(r.bytes());
                case 2 -> kvs.add(parseKeyValue(r.bytes()));
                default -> r.skip(tag);
            }
        }
        return new Range(revision, kvs);
    }

    static WatchResponse parseWatchResponse(byte[] b) {
        Reader r = new Reader(b);
        long watchId = 0;
        boolean created = false;
        boolean canceled = false;
        String reason = "";
        long compact = 0;
        List<KeyValue> events = new ArrayList<>();
        int deletes = 0;
        while (r.more()) {
            int tag = r.tag();
            switch (tag >>> 3) {
                case 2 -> watchId = r.varint();
                case 3 -> created = r.varint() != 0;
                case 4 -> canceled = r.varint() != 0;
                case 5 -> compact = r.varint();
                case 6 -> reason = new String(r.bytes(), java.nio.charset.StandardCharsets.UTF_8);
                case 11 -> {
                    Reader e = new Reader(r.bytes());
                    long type = 0;
                    KeyValue kv = null;
                    while (e.more()) {
                        int t = e.tag();
                        switch (t >>> 3) {
                            case 1 -> type = e.varint();
                            case 2 -> kv = parseKeyValue(e.bytes());
                            default -> e.skip(t);
                        }
                    }
                    if (type == 0 && kv != null) {
                        events.add(kv);
                    } else {
                        deletes++;
                    }
                }
                default -> r.skip(tag);
            }
        }
        return new WatchResponse(watchId, created, canceled, reason, compact, events, deletes);
    }

    private static long parseHeaderRevision(byte[] b) {
        Reader r = new Reader(b);
        long revision = 0;
        while (r.more()) {
            int tag = r.tag();
            if (tag >>> 3 == 3) {
                revision = r.varint();
            } else {
                r.skip(tag);
            }
        }
        return revision;
    }

    private static KeyValue parseKeyValue(byte[] b) {
        Reader r = new Reader(b);
        byte[] key = new byte[0];
        byte[] value = new byte[0];
        long mod = 0;
        while (r.more()) {
            int tag = r.tag();
            switch (tag >>> 3) {
                case 1 -> key = r.bytes();
                case 3 -> mod = r.varint();
                case 5 -> value = r.bytes();
                default -> r.skip(tag);
            }
        }
        return new KeyValue(key, value, mod);
    }

    // ------------------------------------------------------------------ wire format

    private static final class Writer {
        private final ByteArrayOutputStream out = new ByteArrayOutputStream();

        void bytes(int field, byte[] b) {
            rawVarint(((long) field << 3) | 2);
            rawVarint(b.length);
            out.write(b, 0, b.length);
        }

        void varint(int field, long v) {
            rawVarint((long) field << 3);
            rawVarint(v);
        }

        private void rawVarint(long v) {
            while ((v & ~0x7fL) != 0) {
                out.write((int) ((v & 0x7f) | 0x80));
                v >>>= 7;
            }
            out.write((int) v);
        }

        byte[] toByteArray() {
            return out.toByteArray();
        }
    }

    private static final class Reader {
        private final byte[] b;
        private int pos;

        Reader(byte[] b) {
            this.b = b;
        }

        boolean more() {
            return pos < b.length;
        }

        int tag() {
            return (int) varint();
        }

        long varint() {
            long v = 0;
            for (int shift = 0; shift < 64; shift += 7) {
                if (pos >= b.length) {
                    throw new IllegalArgumentException("truncated varint");
                }
                byte x = b[pos++];
                v |= (long) (x & 0x7f) << shift;
                if ((x & 0x80) == 0) {
                    return v;
                }
            }
            throw new IllegalArgumentException("varint longer than 10 bytes");
        }

        byte[] bytes() {
            int len = (int) varint();
            if (len < 0 || pos + len > b.length) {
                throw new IllegalArgumentException("length " + len + " past the end of the message");
            }
            byte[] v = Arrays.copyOfRange(b, pos, pos + len);
            pos += len;
            return v;
        }

        void skip(int tag) {
            switch (tag & 7) {
                case 0 -> varint();
                case 1 -> pos += 8;
                case 2 -> bytes();
                case 5 -> pos += 4;
                default -> throw new IllegalArgumentException("unsupported wire type " + (tag & 7));
            }
        }
    }
}
