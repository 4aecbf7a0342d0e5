package dev.felix.wire;

import java.util.List;
import java.util.function.Function;

/**
 * The JSON layout of one record type: its keys in wire order, each with a value kind, a presence
 * mode and an accessor. The same table drives the encoder (key order, omission rules) and the
 * decoder (required keys, nullability, value checks), so the two cannot drift apart.
 * Package-private; immutable.
 *
 * @param <T> the record type
 */
final class JsonSchema<T> {

    /** How a value is represented in JSON. */
    enum Kind {
        /** JSON string. */
        STR,
        /** Unsigned integer 0..65535, held in an {@code Integer}. */
        U16,
        /** Unsigned integer 0..2^32-1, held in an {@code Integer} with unsigned semantics. */
        U32,
        /** Unsigned integer 0..2^64-1, held in a {@code Long} with unsigned semantics. */
        U64,
        /** JSON boolean. */
        BOOL,
        /** Canonical standard base64 string, held in a {@code byte[]}. */
        B64,
        /** Array of base64 strings, held in a {@code List<byte[]>}. */
        B64_LIST,
        /** {@link AckMode} string. */
        ACK,
        /** {@link StartPosition}: string or {@code {"offset":n}}. */
        START,
        /** {@link QueuePolicy} string. */
        QUEUE_POLICY,
        /** {@link CursorErrorReason} string. */
        CURSOR_REASON,
        /** Array of u32, held in a {@code List<Integer>}. */
        U32_LIST,
        /** Array of unsigned 64-bit integers, held in a {@code List<Long>} with unsigned semantics. */
        U64_LIST,
        /** Array of objects described by {@link Field#nested}. */
        OBJ_LIST,
        /** Array of strings, held in a {@code List<String>}. */
        STR_LIST,
        /** One object described by {@link Field#nested}. */
        OBJ
    }

    /** Key must be present. */
    static final int REQUIRED = 1;
    /** JSON {@code null} is accepted (and means absent). */
    static final int NULLABLE = 2;
    /** Encoder writes {@code null} instead of omitting the key when the value is absent. */
    static final int WRITE_NULL = 4;

    /** Creates the record from decoded slot values (slot i = field i). */
    @FunctionalInterface
    interface Factory<T> {
        T create(Values v) throws WireException;
    }

    /** One key. */
    static final class Field<T> {
        final String name;
        final Kind kind;
        final int mode;
        final Function<T, ?> getter;
        final JsonSchema<?> nested;

        Field(String name, Kind kind, int mode, Function<T, ?> getter, JsonSchema<?> nested) {
            this.name = name;
            this.kind = kind;
            this.mode = mode;
            this.getter = getter;
            this.nested = nested;
        }

        boolean has(int m) {
            return (mode & m) != 0;
        }

        /** The same key read through {@code outer} (used to flatten a nested record into a message). */
        <U> Field<U> through(Function<U, T> outer) {
            return new Field<>(name, kind, mode, u -> getter.apply(outer.apply(u)), nested);
        }
    }

    /** Decoded values by slot; absent or null keys are {@code null}. */
    static final class Values {
        private final Object[] v;

        Values(Object[] v) {
            this.v = v;
        }

        Object get(int i) {
            return v[i];
        }

        String str(int i) {
            return (String) v[i];
        }

        Long optU64(int i) {
            return (Long) v[i];
        }

        long u64(int i) {
            return (Long) v[i];
        }

        Integer optInt(int i) {
            return (Integer) v[i];
        }

        int u32(int i) {
            return (Integer) v[i];
        }

        Boolean optBool(int i) {
            return (Boolean) v[i];
        }

        boolean bool(int i) {
            return (Boolean) v[i];
        }

        byte[] bytes(int i) {
            return (byte[]) v[i];
        }

        @SuppressWarnings("unchecked")
        <E> List<E> list(int i) {
            return (List<E>) v[i];
        }
    }

    final String name;
    final Field<T>[] fields;
    final Factory<T> factory;
    final long requiredMask;

    private JsonSchema(String name, Factory<T> factory, Field<T>[] fields) {
        if (fields.length > 63) {
            throw new IllegalArgumentException("too many fields");
        }
        this.name = name;
        this.factory = factory;
        this.fields = fields;
        long mask = 0;
        for (int i = 0; i < fields.length; i++) {
            if (fields[i].has(REQUIRED)) {
                mask |= 1L << i;
            }
        }
        this.requiredMask = mask;
    }

    @SafeVarargs
    @SuppressWarnings("varargs") // the array is cloned, never exposed
    static <T> JsonSchema<T> of(String name, Factory<T> factory, Field<T>... fields) {
        return new JsonSchema<>(name, factory, fields.clone());
    }

    /** Slot of {@code key}, or -1. Linear: schemas have at most ten keys. */
    int indexOf(String key) {
        Field<T>[] f = fields;
        for (int i = 0; i < f.length; i++) {
            if (f[i].name.equals(key)) {
                return i;
            }
        }
        return -1;
    }

    /** Required, non-null key. */
    static <T> Field<T> req(String name, Kind kind, Function<T, ?> getter) {
        return new Field<>(name, kind, REQUIRED, getter, null);
    }

    /** Optional key ({@code ?} in the spec): omitted when absent, {@code null} accepted on input. */
    static <T> Field<T> opt(String name, Kind kind, Function<T, ?> getter) {
        return new Field<>(name, kind, NULLABLE, getter, null);
    }

    /** Key with an explicit mode. */
    static <T> Field<T> field(String name, Kind kind, int mode, Function<T, ?> getter) {
        return new Field<>(name, kind, mode, getter, null);
    }

    /** Array of nested objects. */
    static <T> Field<T> object(String name, int mode, JsonSchema<?> nested, Function<T, ?> getter) {
        return new Field<>(name, Kind.OBJ, mode, getter, nested);
    }

    static <T> Field<T> objects(String name, int mode, JsonSchema<?> nested, Function<T, ?> getter) {
        return new Field<>(name, Kind.OBJ_LIST, mode, getter, nested);
    }
}
