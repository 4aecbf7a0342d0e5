package dev.felix.wire;

import java.nio.BufferOverflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Decoders and encoders of the binary payload layouts (see each record's javadoc for its byte
 * diagram). Decoders read {@code payload.remaining()} bytes from {@code payload.position()} with
 * absolute reads (the buffer's position, limit and byte order are never used or changed beyond
 * that), check every declared length against the bytes that remain <em>before</em> reading or
 * allocating, copy what they keep, and reject bytes left after the body. Package-private; stateless.
 */
final class BinaryCodec {
    /** Largest str16 name. */
    static final int MAX_NAME_BYTES = 0xFFFF;

    private BinaryCodec() {
    }

    /** Bounds-checked big-endian cursor over {@code [position, limit)} of a buffer. */
    private static final class Reader {
        private final ByteBuffer b;
        private final String what;
        private final int start;
        private final int end;
        /** Names read before on the same stream, or null: {@link #name16} decodes every name afresh. */
        private final NameCache names;
        private int pos;

        Reader(ByteBuffer b, String what) {
            this(b, what, null);
        }

        Reader(ByteBuffer b, String what, NameCache names) {
            this.b = b;
            this.what = what;
            this.start = b.position();
            this.end = b.limit();
            this.names = names;
            this.pos = start;
        }

        int remaining() {
            return end - pos;
        }

        int offset() {
            return pos - start;
        }

        void need(long n, String field) throws WireException {
            if (end - pos < n) {
                throw new WireException(WireError.TRUNCATED, what + ": " + field + ": need " + n
                    + " bytes at offset " + offset() + ", only " + remaining() + " remain");
            }
        }

        /**
         * {@link #need} for {@code field[index] + suffix} ({@code field + suffix} when {@code index < 0}), the name
         * built only when it is missing: the hot path concatenates nothing.
         */
        void need(long n, String field, int index, String suffix) throws WireException {
            if (end - pos < n) {
                need(n, index < 0 ? field + suffix : field + "[" + index + "]" + suffix);
            }
        }

        int u8(String field) throws WireException {
            need(1, field);
            return BigEndian.u8(b, pos++);
        }

        int u16(String field) throws WireException {
            need(2, field);
            int v = BigEndian.u16(b, pos);
            pos += 2;
            return v;
        }

        long u32(String field) throws WireException {
            need(4, field);
            long v = BigEndian.u32(b, pos);
            pos += 4;
            return v;
        }

        long u64(String field) throws WireException {
            need(8, field);
            long v = BigEndian.i64(b, pos);
            pos += 8;
            return v;
        }

        byte[] bytes(int n, String field) throws WireException {
            need(n, field);
            byte[] out = Utf8.copy(b, pos, n);
            pos += n;
            return out;
        }

        void skip(int n, String field) throws WireException {
            need(n, field);
            pos += n;
        }

        String str16(String field) throws WireException {
            need(2, field, -1, " length");
            int len = BigEndian.u16(b, pos);
            pos += 2;
            byte[] raw = bytes(len, field);
            int bad = Utf8.firstInvalid(raw, 0, len);
            if (bad >= 0) {
                throw new WireException(WireError.BAD_UTF8, what + ": " + field + ": invalid UTF-8 at byte "
                    + bad + " of " + len + " (field starts at offset " + (offset() - len) + ")");
            }
            return new String(raw, StandardCharsets.UTF_8);
        }

        /** A str16 name (tenant, namespace, stream): the cached string when these bytes were read before. */
        String name16(String field) throws WireException {
            if (names != null && remaining() >= 2) {
                int len = BigEndian.u16(b, pos);
                if (len <= remaining() - 2) {
                    String hit = names.find(b, pos + 2, len);
                    if (hit != null) {
                        pos += 2 + len;
                        return hit;
                    }
                }
            }
            int at = pos;
            String name = str16(field);
            if (names != null) {
                names.add(Utf8.copy(b, at + 2, pos - at - 2), name);
            }
            return name;
        }

        /** u32 count, bounded by remaining / 4 before allocating, then count x blob32. */
        List<byte[]> blobs() throws WireException {
            int n = blobCount();
            List<byte[]> out = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                out.add(bytes(blobLength(i), "payloads"));
            }
            return out;
        }

        /**
         * As {@link #blobs()}, with the same checks and errors, copying nothing: where the blobs lie, with
         * {@code key} and {@code shard} as the route.
         */
        PublishInPlace blobsInPlace(String tenant, String namespace, String stream, String key, Integer shard)
                throws WireException {
            int n = blobCount();
            int at = offset();
            long bytes = 0;
            for (int i = 0; i < n; i++) {
                int len = blobLength(i);
                pos += len;
                bytes += len;
            }
            return new PublishInPlace(tenant, namespace, stream, key, shard, n, at, offset() - at, bytes);
        }

        /** As {@link #blobs()}, with the same checks and errors, but each payload is recorded where it lies. */
        void blobsInPlace(MuxEventBatchView into) throws WireException {
            int n = blobCount();
            into.events(n);
            for (int i = 0; i < n; i++) {
                int len = blobLength(i);
                into.event(pos, len);
                pos += len;
            }
        }

        /** The u32 count of a blob list, refused unless every blob's length (4 bytes each) could fit. */
        private int blobCount() throws WireException {
            long count = u32("count");
            if (count > remaining() / 4) {
                throw new WireException(WireError.COUNT_TOO_LARGE, what + ": count " + count
                    + " cannot fit in the " + remaining() + " bytes that remain (each payload needs at least 4)");
            }
            return (int) count;
        }

        /** The u32 length of blob {@code i}, refused unless its bytes follow. */
        private int blobLength(int i) throws WireException {
            need(4, "payloads", i, " length");
            long len = BigEndian.u32(b, pos);
            pos += 4;
            if (len > remaining()) {
                throw new WireException(WireError.TRUNCATED, what + ": payloads[" + i + "]: declares " + len
                    + " bytes at offset " + offset() + ", only " + remaining() + " remain");
            }
            return (int) len;
        }

        void end() throws WireException {
            if (pos != end) {
                throw new WireException(WireError.TRAILING_BYTES, what + ": " + remaining()
                    + " unexpected bytes after the body at offset " + offset());
            }
        }
    }

    // ================================================================== decoding

    static BinaryPublishBatch decodePublishBatch(ByteBuffer payload) throws WireException {
        Reader r = new Reader(payload, "publish batch");
        BinaryPublishBatch batch = readPublishBody(r);
        r.end();
        return batch;
    }

    private static BinaryPublishBatch readPublishBody(Reader r) throws WireException {
        String tenant = r.name16("tenant_id");
        String namespace = r.name16("namespace");
        String stream = r.name16("stream");
        List<byte[]> payloads = r.blobs();
        return new BinaryPublishBatch(tenant, namespace, stream, payloads);
    }

    /**
     * A {@code 0x0001} ({@code prefixed} false) or {@code 0x0009} payload without copying its payloads; the
     * {@code 0x0009} prefix is checked and skipped.
     */
    static PublishInPlace decodePublishInPlace(ByteBuffer payload, boolean prefixed, NameCache names)
            throws WireException {
        Reader r = new Reader(payload, prefixed ? "acked publish batch" : "publish batch", names);
        if (prefixed) {
            readPrefix(r);
        }
        return readPublishInPlace(r, null, null);
    }

    /** A {@code 0x0029} payload without copying its payloads. */
    static PublishInPlace decodeRoutedPublishInPlace(ByteBuffer payload, NameCache names) throws WireException {
        Reader r = new Reader(payload, "routed publish batch", names);
        readPrefix(r);
        Route route = readRoute(r);
        return readPublishInPlace(r, route.key, route.shard);
    }

    private static PublishInPlace readPublishInPlace(Reader r, String key, Integer shard) throws WireException {
        String tenant = r.name16("tenant_id");
        String namespace = r.name16("namespace");
        String stream = r.name16("stream");
        PublishInPlace decoded = r.blobsInPlace(tenant, namespace, stream, key, shard);
        r.end();
        return decoded;
    }

    static AckedPublishPrefix decodeAckedPublishPrefix(ByteBuffer payload) throws WireException {
        return readPrefix(new Reader(payload, "acked publish batch"));
    }

    private static AckedPublishPrefix readPrefix(Reader r) throws WireException {
        r.need(AckedPublishPrefix.LENGTH, "prefix");
        long requestId = r.u64("request_id");
        int mode = r.u8("ack_mode");
        AckMode ackMode;
        if (mode == AckMode.PER_MESSAGE.code()) {
            ackMode = AckMode.PER_MESSAGE;
        } else if (mode == AckMode.PER_BATCH.code()) {
            ackMode = AckMode.PER_BATCH;
        } else {
            throw new WireException(WireError.BAD_ACK_MODE, "acked publish batch: ack_mode " + mode
                + " at offset 8 is not 1 (per_message) or 2 (per_batch)");
        }
        return new AckedPublishPrefix(requestId, ackMode);
    }

    static BinaryAckedPublishBatch decodeAckedPublishBatch(ByteBuffer payload) throws WireException {
        Reader r = new Reader(payload, "acked publish batch");
        AckedPublishPrefix prefix = readPrefix(r);
        BinaryPublishBatch batch = readPublishBody(r);
        r.end();
        return new BinaryAckedPublishBatch(prefix.requestId(), prefix.ackMode(), batch);
    }

    static BinaryRoutedPublishBatch decodeRoutedPublishBatch(ByteBuffer payload, NameCache names)
            throws WireException {
        Reader r = new Reader(payload, "routed publish batch", names);
        AckedPublishPrefix prefix = readPrefix(r);
        Route route = readRoute(r);
        BinaryPublishBatch batch = readPublishBody(r);
        r.end();
        return new BinaryRoutedPublishBatch(prefix.requestId(), prefix.ackMode(), route.key, route.shard, batch);
    }

    /** A routed publish's route: a key, a shard, or neither (any shard). */
    private record Route(String key, Integer shard) {
        static final Route ANY = new Route(null, null);
    }

    /** The route after a {@code 0x0029} prefix. */
    private static Route readRoute(Reader r) throws WireException {
        int route = r.u8("route");
        if (route == BinaryRoutedPublishBatch.ROUTE_KEY) {
            return new Route(r.str16("key"), null);
        } else if (route == BinaryRoutedPublishBatch.ROUTE_SHARD) {
            return new Route(null, (int) r.u32("shard"));
        } else if (route != BinaryRoutedPublishBatch.ROUTE_ANY) {
            throw new WireException(WireError.BAD_FIELD, "routed publish batch: route " + route
                + " at offset 9 is not 0 (any shard), 1 (key) or 2 (shard)");
        }
        return Route.ANY;
    }

    static BinaryPublishResult decodePublishResult(ByteBuffer payload) throws WireException {
        Reader r = new Reader(payload, "publish result");
        int status = r.u8("status");
        if (status > 1) {
            throw new WireException(WireError.BAD_FIELD, "publish result: status " + status
                + " at offset 0 is not 0 (ok) or 1 (error)");
        }
        long requestId = r.u64("request_id");
        BinaryPublishResult result;
        if (status == 0) {
            long firstOffset = r.u64("first_offset");
            int count = (int) r.u32("count");
            int shard = (int) r.u32("shard");
            result = BinaryPublishResult.ok(requestId, firstOffset, count, shard);
        } else {
            int codeLength = r.u8("code_len");
            if (codeLength == 0) {
                throw new WireException(WireError.BAD_FIELD, "publish result: code_len is 0 at offset 9");
            }
            String code = Utf8.decode(r.bytes(codeLength, "code"), 0, codeLength, "publish result: code");
            int messageLength = r.u16("message_len");
            String message = Utf8.decode(r.bytes(messageLength, "message"), 0, messageLength,
                "publish result: message");
            result = BinaryPublishResult.error(requestId, code, message);
        }
        r.end();
        return result;
    }

    static BinaryPublishAck decodePublishAck(ByteBuffer payload) throws WireException {
        Reader r = new Reader(payload, "publish ack");
        r.need(BinaryPublishAck.FIXED_LENGTH, "header");
        int status = r.u8("status");
        if (status > 1) {
            throw new WireException(WireError.BAD_FIELD, "publish ack: status " + status
                + " at offset 0 is not 0 (ok) or 1 (error)");
        }
        long requestId = r.u64("request_id");
        int len = r.u16("message_len");
        BinaryPublishAck ack;
        if (status == 0) {
            r.skip(len, "message"); // upstream reads and discards it
            ack = BinaryPublishAck.ok(requestId);
        } else {
            byte[] raw = r.bytes(len, "message");
            ack = BinaryPublishAck.error(requestId, Utf8.decode(raw, 0, len, "publish ack: message"));
        }
        r.end();
        return ack;
    }

    static BinaryEventBatch decodeEventBatch(int flags, ByteBuffer payload) throws WireException {
        boolean withOffset = checkEventFlags(flags, FrameFlags.BINARY_EVENT_BATCH);
        Reader r = new Reader(payload, "event batch");
        long subscriptionId = r.u64("subscription_id");
        Long baseOffset = withOffset ? r.u64("base_offset") : null;
        List<byte[]> payloads = r.blobs();
        r.end();
        return new BinaryEventBatch(subscriptionId, baseOffset, payloads);
    }

    static BinarySharedEventBatch decodeSharedEventBatch(int flags, ByteBuffer payload) throws WireException {
        boolean withOffset = checkEventFlags(flags, FrameFlags.BINARY_EVENT_BATCH_SHARED);
        Reader r = new Reader(payload, "shared event batch");
        Long baseOffset = withOffset ? r.u64("base_offset") : null;
        List<byte[]> payloads = r.blobs();
        r.end();
        return new BinarySharedEventBatch(baseOffset, payloads);
    }

    static BinaryMuxEventBatch decodeMuxEventBatch(ByteBuffer payload) throws WireException {
        MuxEventBatchView view = new MuxEventBatchView();
        view.wrap(payload);
        return view.toBatch();
    }

    /** Checks a mux event batch and records where its parts lie in {@code payload}, copying nothing. */
    static void readMuxEventBatch(ByteBuffer payload, MuxEventBatchView into) throws WireException {
        Reader r = new Reader(payload, "mux event batch");
        int n = r.u16("channel_count");
        if (n == 0) {
            throw new WireException(WireError.BAD_FIELD, "mux event batch: channel_count is 0 at offset 0");
        }
        r.need(4L * n, "channels");
        into.channels(n);
        for (int i = 0; i < n; i++) {
            into.channel(i, (int) r.u32("channel"));
        }
        into.baseOffset(r.u64("base_offset"));
        r.blobsInPlace(into);
        r.end();
    }

    static BinaryWatchChanges decodeWatchChanges(ByteBuffer payload) throws WireException {
        Reader r = new Reader(payload, "watch changes");
        long count = r.u32("count");
        if (count == 0) {
            throw new WireException(WireError.BAD_FIELD, "watch changes: count is 0 at offset 0 (at least one change)");
        }
        if (count > r.remaining() / BinaryWatchChanges.MIN_CHANGE_BYTES) {
            throw new WireException(WireError.COUNT_TOO_LARGE, "watch changes: count " + count + " cannot fit in the "
                + r.remaining() + " bytes that remain (each change needs at least "
                + BinaryWatchChanges.MIN_CHANGE_BYTES + ")");
        }
        int n = (int) count;
        List<Message.WatchChange> changes = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            r.need(BinaryWatchChanges.MIN_CHANGE_BYTES, "changes", i, "");
            long offset = r.u64("offset");
            int at = r.offset();
            int code = r.u8("op");
            String op = BinaryWatchChanges.opName(code);
            if (op == null) {
                throw new WireException(WireError.BAD_FIELD, "watch changes: changes[" + i + "].op " + code
                    + " at offset " + at + " is not 0 (put), 1 (delete), 2 (expire) or 3 (evict)");
            }
            int fields = r.u8("fields");
            if ((fields & ~(BinaryWatchChanges.HAS_VALUE | BinaryWatchChanges.HAS_EXPIRY)) != 0) {
                throw new WireException(WireError.BAD_FIELD, "watch changes: changes[" + i + "].fields 0x"
                    + Integer.toHexString(fields) + " at offset " + (at + 1) + " sets bits other than 0x01 (value)"
                    + " and 0x02 (expires_at_ms)");
            }
            String key = r.str16("key");
            byte[] value = null;
            if ((fields & BinaryWatchChanges.HAS_VALUE) != 0) {
                long len = r.u32("value length");
                if (len > r.remaining()) {
                    throw new WireException(WireError.TRUNCATED, "watch changes: changes[" + i + "].value: declares "
                        + len + " bytes at offset " + r.offset() + ", only " + r.remaining() + " remain");
                }
                value = r.bytes((int) len, "value");
            }
            Long expiresAtMs = (fields & BinaryWatchChanges.HAS_EXPIRY) != 0 ? r.u64("expires_at_ms") : null;
            changes.add(new Message.WatchChange(offset, key, op, value, expiresAtMs));
        }
        r.end();
        return new BinaryWatchChanges(changes);
    }

    private static boolean checkEventFlags(int flags, int layout) throws WireException {
        if (flags == layout) {
            return false;
        }
        if (flags == (layout | FrameFlags.EVENT_BATCH_OFFSETS)) {
            return true;
        }
        throw new WireException(WireError.BAD_FLAG_COMBINATION, "flags " + FrameFlags.describe(flags)
            + " do not select the " + FrameFlags.describe(layout) + " event batch layout");
    }

    static BinaryPayload decode(int flags, ByteBuffer payload) throws WireException {
        switch (PayloadKind.of(flags)) {
            case PUBLISH_BATCH:
                return decodePublishBatch(payload);
            case ACKED_PUBLISH_BATCH:
                return decodeAckedPublishBatch(payload);
            case PUBLISH_ACK:
                return decodePublishAck(payload);
            case ROUTED_PUBLISH_BATCH:
                return decodeRoutedPublishBatch(payload, null);
            case PUBLISH_RESULT:
                return decodePublishResult(payload);
            case EVENT_BATCH:
            case EVENT_BATCH_WITH_OFFSET:
                return decodeEventBatch(flags, payload);
            case SHARED_EVENT_BATCH:
            case SHARED_EVENT_BATCH_WITH_OFFSET:
                return decodeSharedEventBatch(flags, payload);
            case MUX_EVENT_BATCH:
                return decodeMuxEventBatch(payload);
            case WATCH_CHANGES:
                return decodeWatchChanges(payload);
            case JSON:
            default:
                throw new WireException(WireError.BAD_FLAG_COMBINATION,
                    "flags 0x0000 select a JSON message, not a binary payload");
        }
    }

    // ================================================================== encoding

    /** Encoded names of a publish batch, computed once per encode. */
    private static byte[][] names(BinaryPublishBatch b) {
        return new byte[][] {name(b.tenantId(), "tenant_id"), name(b.namespace(), "namespace"),
            name(b.stream(), "stream")};
    }

    private static byte[] name(String s, String field) {
        byte[] raw = Utf8.encode(s, field);
        if (raw.length > MAX_NAME_BYTES) {
            throw new IllegalArgumentException(field + " is " + raw.length + " UTF-8 bytes; the limit is "
                + MAX_NAME_BYTES);
        }
        return raw;
    }

    private static long publishBodyLength(byte[][] names, List<byte[]> payloads) {
        long len = 6L + names[0].length + names[1].length + names[2].length + 4;
        for (byte[] p : payloads) {
            len += 4L + p.length;
        }
        return len;
    }

    /** Bytes of the route of a routed publish after its route byte, the byte included. */
    private static long routeLength(BinaryRoutedPublishBatch r) {
        if (r.key() != null) {
            return 1 + 2 + name(r.key(), "key").length;
        }
        return r.shard() != null ? 1 + 4 : 1;
    }

    /** Truncates to at most {@link BinaryPublishAck#MAX_MESSAGE_BYTES} on a UTF-8 character boundary. */
    static byte[] ackMessage(String message) {
        if (message == null) {
            return new byte[0];
        }
        byte[] raw = Utf8.encode(message, "message");
        if (raw.length <= BinaryPublishAck.MAX_MESSAGE_BYTES) {
            return raw;
        }
        int cut = BinaryPublishAck.MAX_MESSAGE_BYTES;
        while (cut > 0 && (raw[cut] & 0xC0) == 0x80) {
            cut--; // raw[cut] would be the first dropped byte: never split a character
        }
        return java.util.Arrays.copyOf(raw, cut);
    }

    /** Exact frame length of {@code p}, header included. */
    static int frameLength(BinaryPayload p) {
        return (int) checkedLength(payloadLength(p, null, null));
    }

    private static long checkedLength(long payloadLength) {
        long frame = FrameHeader.HEADER_LENGTH + payloadLength;
        if (frame > FrameHeader.MAX_SUPPORTED_FRAME_BYTES) {
            throw new IllegalArgumentException("frame of " + frame + " bytes exceeds "
                + FrameHeader.MAX_SUPPORTED_FRAME_BYTES);
        }
        return frame;
    }

    private static long payloadLength(BinaryPayload p, byte[][] names, byte[] message) {
        if (p instanceof BinaryWatchChanges w) {
            long len = 4;
            for (Message.WatchChange c : w.changes()) {
                len += BinaryWatchChanges.MIN_CHANGE_BYTES + name(c.key(), "key").length
                    + (c.value() != null ? 4L + c.value().length : 0) + (c.expiresAtMs() != null ? 8 : 0);
            }
            return len;
        }
        if (p instanceof BinaryRoutedPublishBatch r) {
            return AckedPublishPrefix.LENGTH + routeLength(r)
                + publishBodyLength(names != null ? names : names(r.batch()), r.batch().payloads());
        }
        if (p instanceof BinaryPublishResult r) {
            return r.isOk() ? BinaryPublishResult.OK_LENGTH
                : 9L + 1 + Utf8.encode(r.code(), "code").length + 2 + Utf8.encode(r.message(), "message").length;
        }
        if (p instanceof BinaryPublishBatch b) {
            return publishBodyLength(names != null ? names : names(b), b.payloads());
        }
        if (p instanceof BinaryAckedPublishBatch a) {
            return AckedPublishPrefix.LENGTH
                + publishBodyLength(names != null ? names : names(a.batch()), a.batch().payloads());
        }
        if (p instanceof BinaryPublishAck a) {
            return BinaryPublishAck.FIXED_LENGTH + (message != null ? message : ackMessage(a.message())).length;
        }
        if (p instanceof BinaryEventBatch e) {
            return EventBatchEncoder.subscriberFrameLength(e.baseOffset() != null, e.payloads())
                - FrameHeader.HEADER_LENGTH;
        }
        if (p instanceof BinaryMuxEventBatch m) {
            return EventBatchEncoder.muxPrefixLength(m.channels().length) - FrameHeader.HEADER_LENGTH
                + EventBatchEncoder.sharedFrameLength(true, m.payloads()) - FrameHeader.HEADER_LENGTH;
        }
        BinarySharedEventBatch s = (BinarySharedEventBatch) p;
        return EventBatchEncoder.sharedFrameLength(s.baseOffset() != null, s.payloads()) - FrameHeader.HEADER_LENGTH;
    }

    /** Writes the complete frame of {@code p} at {@code dst.position()}; nothing is written if it does not fit. */
    static void encodeFrame(BinaryPayload p, ByteBuffer dst) {
        if (p instanceof BinaryWatchChanges w) {
            long payloadLength = payloadLength(w, null, null);
            if (dst.remaining() < checkedLength(payloadLength)) {
                throw new BufferOverflowException();
            }
            FrameHeader.write(dst, w.frameFlags(), (int) payloadLength);
            BigEndian.put32(dst, w.changes().size());
            for (Message.WatchChange c : w.changes()) {
                BigEndian.put64(dst, c.offset());
                BigEndian.put8(dst, BinaryWatchChanges.opCode(c.op()));
                BigEndian.put8(dst, (c.value() != null ? BinaryWatchChanges.HAS_VALUE : 0)
                    | (c.expiresAtMs() != null ? BinaryWatchChanges.HAS_EXPIRY : 0));
                byte[] key = name(c.key(), "key");
                BigEndian.put16(dst, key.length);
                dst.put(key);
                if (c.value() != null) {
                    BigEndian.put32(dst, c.value().length);
                    dst.put(c.value());
                }
                if (c.expiresAtMs() != null) {
                    BigEndian.put64(dst, c.expiresAtMs());
                }
            }
            return;
        }
        if (p instanceof BinaryEventBatch e) {
            byte[][] a = e.payloads().toArray(new byte[0][]);
            EventBatchEncoder.encode(dst, e.frameFlags(), true, e.subscriptionId(), e.baseOffset() != null,
                e.baseOffset() == null ? 0 : e.baseOffset(), a, 0, a.length);
            return;
        }
        if (p instanceof BinaryMuxEventBatch m) {
            byte[][] a = m.payloads().toArray(new byte[0][]);
            int[] channels = m.channels();
            EventBatchEncoder.encodeMux(dst, channels, channels.length, m.baseOffset(), a, 0, a.length);
            return;
        }
        if (p instanceof BinarySharedEventBatch s) {
            byte[][] a = s.payloads().toArray(new byte[0][]);
            EventBatchEncoder.encode(dst, s.frameFlags(), false, 0, s.baseOffset() != null,
                s.baseOffset() == null ? 0 : s.baseOffset(), a, 0, a.length);
            return;
        }
        if (p instanceof BinaryRoutedPublishBatch r) {
            byte[][] names = names(r.batch());
            long payloadLength = payloadLength(r, names, null);
            if (dst.remaining() < checkedLength(payloadLength)) {
                throw new BufferOverflowException();
            }
            FrameHeader.write(dst, r.frameFlags(), (int) payloadLength);
            BigEndian.put64(dst, r.requestId());
            BigEndian.put8(dst, r.ackMode().code());
            BigEndian.put8(dst, r.route());
            if (r.key() != null) {
                byte[] key = name(r.key(), "key");
                BigEndian.put16(dst, key.length);
                dst.put(key);
            } else if (r.shard() != null) {
                BigEndian.put32(dst, r.shard());
            }
            writePublishBody(dst, names, r.batch().payloads());
            return;
        }
        if (p instanceof BinaryPublishResult r) {
            long payloadLength = payloadLength(r, null, null);
            if (dst.remaining() < checkedLength(payloadLength)) {
                throw new BufferOverflowException();
            }
            FrameHeader.write(dst, r.frameFlags(), (int) payloadLength);
            BigEndian.put8(dst, r.isOk() ? 0 : 1);
            BigEndian.put64(dst, r.requestId());
            if (r.isOk()) {
                BigEndian.put64(dst, r.firstOffset());
                BigEndian.put32(dst, r.count());
                BigEndian.put32(dst, r.shard());
            } else {
                byte[] code = Utf8.encode(r.code(), "code");
                byte[] message = Utf8.encode(r.message(), "message");
                BigEndian.put8(dst, code.length);
                dst.put(code);
                BigEndian.put16(dst, message.length);
                dst.put(message);
            }
            return;
        }
        byte[][] names = null;
        byte[] message = null;
        if (p instanceof BinaryPublishBatch b) {
            names = names(b);
        } else if (p instanceof BinaryAckedPublishBatch a) {
            names = names(a.batch());
        } else {
            message = ackMessage(((BinaryPublishAck) p).message());
        }
        long payloadLength = payloadLength(p, names, message);
        long frame = checkedLength(payloadLength);
        if (dst.remaining() < frame) {
            throw new BufferOverflowException();
        }
        FrameHeader.write(dst, p.frameFlags(), (int) payloadLength);
        if (p instanceof BinaryPublishBatch b) {
            writePublishBody(dst, names, b.payloads());
        } else if (p instanceof BinaryAckedPublishBatch a) {
            BigEndian.put64(dst, a.requestId());
            BigEndian.put8(dst, a.ackMode().code());
            writePublishBody(dst, names, a.batch().payloads());
        } else {
            BinaryPublishAck a = (BinaryPublishAck) p;
            BigEndian.put8(dst, a.status() == BinaryPublishAck.Status.OK ? 0 : 1);
            BigEndian.put64(dst, a.requestId());
            BigEndian.put16(dst, message.length);
            dst.put(message);
        }
    }

    private static void writePublishBody(ByteBuffer dst, byte[][] names, List<byte[]> payloads) {
        for (byte[] n : names) {
            BigEndian.put16(dst, n.length);
            dst.put(n);
        }
        BigEndian.put32(dst, payloads.size());
        for (byte[] p : payloads) {
            BigEndian.put32(dst, p.length);
            dst.put(p);
        }
    }
}
