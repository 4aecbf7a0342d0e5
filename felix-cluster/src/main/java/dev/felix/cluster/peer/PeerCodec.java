package dev.felix.cluster.peer;

import dev.felix.cluster.ShardKey;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.charset.StandardCharsets;

/**
 * Binary layout of {@link PeerMessage}s. A frame is {@code u32 length} (of what follows), {@code u8 type},
 * then the fields big-endian in declaration order: a {@link ShardKey} is {@code u8 kind, u64 uid, u32 shard};
 * {@code records} ends with its record bytes; {@code refused} ends with its UTF-8 message; {@code relay_subscribe}
 * is {@code u32 shard} then the stream's UTF-8 name; {@code relay_events} is {@code u64 base, u32 count} then
 * {@code count} times {@code u32 length, bytes}; {@code relay_catch_up} is {@code u32 shard, i64 from} then the
 * stream's UTF-8 name; {@code relay_gap} is {@code u64 from, u64 to} then the reason's UTF-8 wire name. Every declared
 * length is checked against {@link #MAX_FRAME_BYTES} and the bytes present before anything is allocated.
 *
 * <p>Stateless and thread-safe.
 */
public final class PeerCodec {

    /** Largest frame either side accepts (record bytes of one answer plus headers). */
    public static final int MAX_FRAME_BYTES = 16 << 20;
    /** The frame length prefix. */
    public static final int LENGTH_BYTES = 4;

    static final int FETCH = 1;
    static final int PROGRESS = 2;
    static final int RECORDS = 3;
    static final int REFUSED = 4;
    static final int RELAY_SUBSCRIBE = 5;
    static final int RELAY_STARTED = 6;
    static final int RELAY_EVENTS = 7;
    static final int RELAY_CATCH_UP = 8;
    static final int RELAY_GAP = 9;
    static final int SNAPSHOT_FETCH = 10;
    static final int SNAPSHOT_PART = 11;

    private static final int KEY_BYTES = 1 + 8 + 4;

    private PeerCodec() {
    }

    /** The frame for {@code m}, length prefix included. The caller owns the buffer. */
    public static ByteBuf encode(ByteBufAllocator alloc, PeerMessage m) {
        ByteBuf out;
        if (m instanceof PeerMessage.Fetch f) {
            out = alloc.buffer(LENGTH_BYTES + 1 + KEY_BYTES + 8 * 5 + 4 * 2);
            out.writeInt(0).writeByte(FETCH);
            writeKey(out, f.key());
            out.writeLong(f.epoch()).writeLong(f.from()).writeLong(f.lastEpoch()).writeLong(f.durableEnd())
                    .writeInt(f.maxBytes()).writeInt(f.waitMillis()).writeLong(f.onlyEpoch());
        } else if (m instanceof PeerMessage.Progress p) {
            out = alloc.buffer(LENGTH_BYTES + 1 + KEY_BYTES + 8 * 3);
            out.writeInt(0).writeByte(PROGRESS);
            writeKey(out, p.key());
            out.writeLong(p.epoch()).writeLong(p.writtenEnd()).writeLong(p.durableEnd());
        } else if (m instanceof PeerMessage.Records r) {
            out = alloc.buffer(LENGTH_BYTES + 1 + 8 * 5 + 4 + r.bytes().length);
            out.writeInt(0).writeByte(RECORDS);
            out.writeLong(r.epoch()).writeLong(r.from()).writeLong(r.recordsEpoch()).writeLong(r.hwm())
                    .writeLong(r.leaderEnd()).writeInt(r.count()).writeBytes(r.bytes());
        } else if (m instanceof PeerMessage.RelaySubscribe r) {
            byte[] name = r.stream().getBytes(StandardCharsets.UTF_8);
            out = alloc.buffer(LENGTH_BYTES + 1 + 4 + name.length);
            out.writeInt(0).writeByte(RELAY_SUBSCRIBE).writeInt(r.shard()).writeBytes(name);
        } else if (m instanceof PeerMessage.RelayCatchUp r) {
            byte[] name = r.stream().getBytes(StandardCharsets.UTF_8);
            out = alloc.buffer(LENGTH_BYTES + 1 + 4 + 8 + name.length);
            out.writeInt(0).writeByte(RELAY_CATCH_UP).writeInt(r.shard()).writeLong(r.from()).writeBytes(name);
        } else if (m instanceof PeerMessage.RelayGap r) {
            byte[] reason = r.reason().getBytes(StandardCharsets.UTF_8);
            out = alloc.buffer(LENGTH_BYTES + 1 + 8 * 2 + reason.length);
            out.writeInt(0).writeByte(RELAY_GAP).writeLong(r.from()).writeLong(r.to()).writeBytes(reason);
        } else if (m instanceof PeerMessage.RelayStarted r) {
            out = alloc.buffer(LENGTH_BYTES + 1 + 8 * 2);
            out.writeInt(0).writeByte(RELAY_STARTED).writeLong(r.next()).writeLong(r.incarnation());
        } else if (m instanceof PeerMessage.RelayEvents r) {
            long bytes = 0;
            for (byte[] p : r.payloads()) {
                bytes += 4 + p.length;
            }
            out = alloc.buffer((int) Math.min(Integer.MAX_VALUE, LENGTH_BYTES + 1 + 8 + 4 + bytes));
            out.writeInt(0).writeByte(RELAY_EVENTS).writeLong(r.baseOffset()).writeInt(r.payloads().length);
            for (byte[] p : r.payloads()) {
                out.writeInt(p.length).writeBytes(p);
            }
        } else if (m instanceof PeerMessage.SnapshotFetch f) {
            out = alloc.buffer(LENGTH_BYTES + 1 + KEY_BYTES + 8 * 4 + 4);
            out.writeInt(0).writeByte(SNAPSHOT_FETCH);
            writeKey(out, f.key());
            out.writeLong(f.epoch()).writeLong(f.after()).writeLong(f.offset()).writeLong(f.position())
                    .writeInt(f.maxBytes());
        } else if (m instanceof PeerMessage.SnapshotPart p) {
            out = alloc.buffer(LENGTH_BYTES + 1 + 8 * 3 + p.bytes().length);
            out.writeInt(0).writeByte(SNAPSHOT_PART).writeLong(p.offset()).writeLong(p.position()).writeLong(p.total())
                    .writeBytes(p.bytes());
        } else {
            PeerMessage.Refused r = (PeerMessage.Refused) m;
            byte[] text = r.message().getBytes(StandardCharsets.UTF_8);
            out = alloc.buffer(LENGTH_BYTES + 1 + 1 + 8 * 2 + text.length);
            out.writeInt(0).writeByte(REFUSED);
            out.writeByte(r.code().wire).writeLong(r.epoch()).writeLong(r.offset()).writeBytes(text);
        }
        out.setInt(0, out.readableBytes() - LENGTH_BYTES);
        return out;
    }

    /**
     * The message in {@code frame} (the bytes after the length prefix, exactly one frame).
     *
     * @throws PeerProtocolException naming what is wrong, for a frame that is not a valid message
     */
    public static PeerMessage decode(ByteBuf frame) throws PeerProtocolException {
        if (frame.readableBytes() < 1) {
            throw new PeerProtocolException("empty peer frame");
        }
        int type = frame.readUnsignedByte();
        switch (type) {
            case FETCH -> {
                need(frame, KEY_BYTES + 8 * 5 + 4 * 2, "fetch");
                ShardKey key = readKey(frame);
                long epoch = frame.readLong();
                long from = frame.readLong();
                long lastEpoch = frame.readLong();
                long durable = frame.readLong();
                int maxBytes = frame.readInt();
                int wait = frame.readInt();
                long only = frame.readLong();
                if (from < 0 || maxBytes <= 0 || wait < 0) {
                    throw new PeerProtocolException("fetch with from " + from + ", max_bytes " + maxBytes
                            + ", wait " + wait + " ms");
                }
                return new PeerMessage.Fetch(key, epoch, from, lastEpoch, durable, maxBytes, wait, only);
            }
            case PROGRESS -> {
                need(frame, KEY_BYTES + 8 * 3, "progress");
                return new PeerMessage.Progress(readKey(frame), frame.readLong(), frame.readLong(), frame.readLong());
            }
            case RECORDS -> {
                need(frame, 8 * 5 + 4, "records");
                long epoch = frame.readLong();
                long from = frame.readLong();
                long recordsEpoch = frame.readLong();
                long hwm = frame.readLong();
                long end = frame.readLong();
                int count = frame.readInt();
                if (count < 0 || (count == 0) != (frame.readableBytes() == 0)) {
                    throw new PeerProtocolException("records frame declares " + count + " records with "
                            + frame.readableBytes() + " bytes");
                }
                byte[] bytes = new byte[frame.readableBytes()];
                frame.readBytes(bytes);
                return new PeerMessage.Records(epoch, from, recordsEpoch, hwm, end, count, bytes);
            }
            case REFUSED -> {
                need(frame, 1 + 8 * 2, "refused");
                PeerMessage.Refusal code = PeerMessage.Refusal.of(frame.readUnsignedByte());
                if (code == null) {
                    throw new PeerProtocolException("unknown refusal code");
                }
                long epoch = frame.readLong();
                long offset = frame.readLong();
                String text = frame.readCharSequence(frame.readableBytes(), StandardCharsets.UTF_8).toString();
                return new PeerMessage.Refused(code, epoch, offset, text);
            }
            case RELAY_SUBSCRIBE -> {
                need(frame, 4 + 1, "relay_subscribe");
                int shard = frame.readInt();
                if (shard < 0) {
                    throw new PeerProtocolException("relay_subscribe with shard " + shard);
                }
                return new PeerMessage.RelaySubscribe(
                        frame.readCharSequence(frame.readableBytes(), StandardCharsets.UTF_8).toString(), shard);
            }
            case RELAY_CATCH_UP -> {
                need(frame, 4 + 8 + 1, "relay_catch_up");
                int shard = frame.readInt();
                long from = frame.readLong();
                if (shard < 0 || from < PeerMessage.RelayCatchUp.EARLIEST) {
                    throw new PeerProtocolException("relay_catch_up with shard " + shard + " from " + from);
                }
                return new PeerMessage.RelayCatchUp(
                        frame.readCharSequence(frame.readableBytes(), StandardCharsets.UTF_8).toString(), shard, from);
            }
            case RELAY_GAP -> {
                need(frame, 8 * 2 + 1, "relay_gap");
                long from = frame.readLong();
                long to = frame.readLong();
                if (from < 0 || to < from) {
                    throw new PeerProtocolException("relay_gap from " + from + " to " + to);
                }
                return new PeerMessage.RelayGap(from, to,
                        frame.readCharSequence(frame.readableBytes(), StandardCharsets.UTF_8).toString());
            }
            case RELAY_STARTED -> {
                need(frame, 8 * 2, "relay_started");
                long next = frame.readLong();
                if (next < 0) {
                    throw new PeerProtocolException("relay_started at offset " + next);
                }
                return new PeerMessage.RelayStarted(next, frame.readLong());
            }
            case RELAY_EVENTS -> {
                need(frame, 8 + 4, "relay_events");
                long base = frame.readLong();
                int count = frame.readInt();
                // Each event needs at least its 4-byte length: a count the frame cannot hold is refused before
                // the array is allocated.
                if (base < 0 || count <= 0 || count > frame.readableBytes() / 4) {
                    throw new PeerProtocolException("relay_events at " + base + " declares " + count + " events in "
                            + frame.readableBytes() + " bytes");
                }
                byte[][] payloads = new byte[count][];
                for (int i = 0; i < count; i++) {
                    need(frame, 4, "relay_events event");
                    int length = frame.readInt();
                    if (length < 0 || length > frame.readableBytes()) {
                        throw new PeerProtocolException("relay_events event " + i + " declares " + length
                                + " bytes, " + frame.readableBytes() + " left");
                    }
                    payloads[i] = new byte[length];
                    frame.readBytes(payloads[i]);
                }
                if (frame.isReadable()) {
                    throw new PeerProtocolException("relay_events has " + frame.readableBytes() + " bytes past its"
                            + " last event");
                }
                return new PeerMessage.RelayEvents(base, payloads);
            }
            case SNAPSHOT_FETCH -> {
                need(frame, KEY_BYTES + 8 * 4 + 4, "snapshot_fetch");
                ShardKey key = readKey(frame);
                long epoch = frame.readLong();
                long after = frame.readLong();
                long offset = frame.readLong();
                long position = frame.readLong();
                int maxBytes = frame.readInt();
                if (after < -1 || offset < -1 || position < 0 || maxBytes <= 0) {
                    throw new PeerProtocolException("snapshot_fetch after " + after + ", offset " + offset
                            + ", position " + position + ", max_bytes " + maxBytes);
                }
                return new PeerMessage.SnapshotFetch(key, epoch, after, offset, position, maxBytes);
            }
            case SNAPSHOT_PART -> {
                need(frame, 8 * 3, "snapshot_part");
                long offset = frame.readLong();
                long position = frame.readLong();
                long total = frame.readLong();
                if (offset < -1 || position < 0 || total < 0 || position > total
                        || frame.readableBytes() > total - position) {
                    throw new PeerProtocolException("snapshot_part of " + offset + " at " + position + " with "
                            + frame.readableBytes() + " bytes of " + total);
                }
                byte[] bytes = new byte[frame.readableBytes()];
                frame.readBytes(bytes);
                return new PeerMessage.SnapshotPart(offset, position, total, bytes);
            }
            default -> throw new PeerProtocolException("unknown peer message type " + type);
        }
    }

    private static void need(ByteBuf frame, int bytes, String what) throws PeerProtocolException {
        if (frame.readableBytes() < bytes) {
            throw new PeerProtocolException(what + " frame needs " + bytes + " bytes after its type, has "
                    + frame.readableBytes());
        }
    }

    private static void writeKey(ByteBuf out, ShardKey key) {
        out.writeByte(key.kind().ordinal()).writeLong(key.uid()).writeInt(key.shard());
    }

    private static ShardKey readKey(ByteBuf in) throws PeerProtocolException {
        int kind = in.readUnsignedByte();
        long uid = in.readLong();
        int shard = in.readInt();
        if (kind >= ShardKey.Kind.values().length || shard < 0) {
            throw new PeerProtocolException("bad unit key: kind " + kind + ", shard " + shard);
        }
        return new ShardKey(ShardKey.Kind.values()[kind], uid, shard);
    }
}
