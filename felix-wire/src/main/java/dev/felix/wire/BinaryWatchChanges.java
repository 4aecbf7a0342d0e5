package dev.felix.wire;

import java.util.List;
import java.util.Objects;

/**
 * Binary watch changes, frame flags {@code 0x0026} ({@code 0x0002 | 0x0004 | 0x0020}, broker to client; extension
 * {@link Capabilities#BINARY_WATCH}): one or more {@code watch_change}s of a watched cache without JSON or base64,
 * so the broker encodes a change once and writes the same bytes to every watcher that negotiated it. A watcher
 * that did not still gets one JSON {@code watch_change} per change.
 *
 * <pre>
 *  offset  size  field
 *  0       4     count C (u32), 1 &lt;= C &lt;= remaining / 12
 *  then C times:
 *  +0      8     offset (u64): the change offset
 *  +8      1     op: 0 = put, 1 = delete, 2 = expire, 3 = evict          (else BAD_FIELD)
 *  +9      1     fields: 0x01 = value follows, 0x02 = expires_at_ms follows (other bits: BAD_FIELD)
 *  +10     2+K   key (str16)
 *  ...     4+V   value (blob32), only with fields 0x01
 *  ...     8     expires_at_ms (u64, epoch ms), only with fields 0x02
 * </pre>
 *
 * Offset 17, put of {@code "k"} = {@code "hi"} without expiry:
 * {@code 00000001 | 0000000000000011 00 01 | 0001 6b | 00000002 6869}.
 *
 * <p>Unlike JSON's plain-string {@code op}, the op is a code: an op a newer broker adds cannot be carried here
 * and goes to binary watchers as JSON {@code watch_change} instead (the watcher reads both on one stream), so an
 * older client never meets an op code it does not know. Every length is checked against the bytes that remain
 * before anything is allocated; bytes after the last change are {@link WireError#TRAILING_BYTES}.
 *
 * @param changes the changes, in offset order; at least one
 */
public record BinaryWatchChanges(List<Message.WatchChange> changes) implements BinaryPayload {

    /** Op code of {@link Message.WatchChange#OP_PUT}. */
    public static final int OP_PUT = 0;
    /** Op code of {@link Message.WatchChange#OP_DELETE}. */
    public static final int OP_DELETE = 1;
    /** Op code of {@link Message.WatchChange#OP_EXPIRE}. */
    public static final int OP_EXPIRE = 2;
    /** Op code of {@link Message.WatchChange#OP_EVICT}. */
    public static final int OP_EVICT = 3;
    /** {@code fields} bit: a value follows the key. */
    static final int HAS_VALUE = 0x01;
    /** {@code fields} bit: an expiry follows the key (and the value). */
    static final int HAS_EXPIRY = 0x02;
    /** Smallest encoded change: offset, op, fields and an empty key. */
    static final int MIN_CHANGE_BYTES = 12;

    private static final String[] OPS = {
        Message.WatchChange.OP_PUT, Message.WatchChange.OP_DELETE, Message.WatchChange.OP_EXPIRE,
        Message.WatchChange.OP_EVICT};

    /**
     * @throws NullPointerException     if {@code changes} or an element is null
     * @throws IllegalArgumentException if there is no change or one cannot be carried ({@link #canCarry})
     */
    public BinaryWatchChanges {
        changes = List.copyOf(Objects.requireNonNull(changes, "changes"));
        if (changes.isEmpty()) {
            throw new IllegalArgumentException("a binary watch-change frame carries at least one change");
        }
        for (Message.WatchChange c : changes) {
            if (!canCarry(c)) {
                throw new IllegalArgumentException("op '" + c.op() + "' of change " + Long.toUnsignedString(c.offset())
                    + " has no binary code; send it as JSON watch_change");
            }
        }
    }

    /** One change. */
    public static BinaryWatchChanges of(Message.WatchChange change) {
        return new BinaryWatchChanges(List.of(change));
    }

    /** Whether {@code c}'s op has a binary code (a newer op goes as JSON); key lengths are checked on encoding. */
    public static boolean canCarry(Message.WatchChange c) {
        return canCarryOp(c.op());
    }

    /** Whether the wire op name {@code op} has a binary code. */
    public static boolean canCarryOp(String op) {
        return opCode(op) >= 0;
    }

    /** The code of a wire op name, or -1 for an op this layout cannot carry. */
    static int opCode(String op) {
        for (int i = 0; i < OPS.length; i++) {
            if (OPS[i].equals(op)) {
                return i;
            }
        }
        return -1;
    }

    /** The wire op name of a code, or null for a code this layout does not define. */
    static String opName(int code) {
        return code >= 0 && code < OPS.length ? OPS[code] : null;
    }

    /** {@code 0x0026}. */
    @Override
    public int frameFlags() {
        return FrameFlags.BINARY_EVENT_BATCH | FrameFlags.BINARY_EVENT_BATCH_SHARED | FrameFlags.EVENT_BATCH_OFFSETS;
    }

    @Override
    public String toString() {
        return "BinaryWatchChanges" + changes;
    }
}
