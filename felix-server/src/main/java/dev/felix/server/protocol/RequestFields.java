package dev.felix.server.protocol;

import dev.felix.core.ErrorCode;
import dev.felix.core.FelixException;

/**
 * Range checks for numeric fields of client requests. The codec reads {@code u64} fields as unsigned
 * and holds them in a {@code long}, so a value above {@code 2^63-1} (what a negative number typed into a
 * client becomes) arrives negative; every such field the broker uses goes through here and is refused
 * with {@code bad_request} naming the field, the valid range and the value as sent. Stateless.
 */
final class RequestFields {
    private RequestFields() {
    }

    /** {@code value} (a {@code u64} field) if within {@code [min, max]}, compared unsigned; else {@code bad_request}. */
    static long u64(String field, long value, long min, long max) throws FelixException {
        if (Long.compareUnsigned(value, min) < 0 || Long.compareUnsigned(value, max) > 0) {
            throw new FelixException(ErrorCode.BAD_REQUEST, field + " must be within " + range(min, max) + ", got "
                    + Long.toUnsignedString(value));
        }
        return value;
    }

    /** {@code value} (a {@code u32} field held in an int) if within {@code [min, max]}, compared unsigned. */
    static int u32(String field, int value, int min, int max) throws FelixException {
        return (int) u64(field, Integer.toUnsignedLong(value), min, max);
    }

    private static String range(long min, long max) {
        return "[" + min + ", " + (max == Long.MAX_VALUE ? "2^63-1" : Long.toString(max)) + "]";
    }
}
