package dev.felix.bench.floor;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.DecoderException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The floor's frames: a kind byte, a four-byte big-endian length, then that many bytes. A stream opens with one
 * {@link #SUBSCRIBE} or {@link #PUBLISH} frame naming its topic, which the server answers with {@link #READY}; a
 * publisher then sends {@link #CONFIRMED} messages, {@link #BATCH}es of unconfirmed ones and {@link #PING}s, and the
 * server answers each confirmed message and each ping with one {@link #ACK}. Subscribers receive the publisher's
 * frames as they were sent (pings included, which they skip).
 */
final class FloorFrames {
    private FloorFrames() {
    }

    static final byte SUBSCRIBE = 'S';
    static final byte PUBLISH = 'P';
    static final byte READY = 'R';
    static final byte CONFIRMED = 'C';
    /** Unconfirmed messages, several in one frame: each a four-byte length and its bytes (a batch, as Felix's). */
    static final byte BATCH = 'B';
    static final byte PING = 'F';
    static final byte ACK = 'A';

    static final int HEADER = 5;
    /** The largest length a frame may declare; a larger one ends the stream before anything is allocated. */
    static final int MAX_LENGTH = 16 << 20;

    /** Writes one frame of {@code kind} holding {@code body} to {@code out}. */
    static void write(ByteBuf out, byte kind, byte[] body) {
        out.writeByte(kind).writeInt(body.length).writeBytes(body);
    }

    static void writeEmpty(ByteBuf out, byte kind, int count) {
        for (int i = 0; i < count; i++) {
            out.writeByte(kind).writeInt(0);
        }
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** The length the frame at {@code at} declares. */
    static int length(ByteBuf run, int at) {
        return run.getInt(at + 1);
    }

    /**
     * Splits a stream's bytes into runs of whole frames: each run it passes on is a retained slice of every
     * complete frame received so far, as the bytes came (no copy), so a forwarder can send a run on as it is.
     */
    static final class Runs extends ByteToMessageDecoder {
        @Override
        protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
            int start = in.readerIndex();
            int at = start;
            int end = in.writerIndex();
            while (end - at >= HEADER) {
                int length = length(in, at);
                if (length < 0 || length > MAX_LENGTH) {
                    throw new DecoderException("a frame declares " + length + " bytes; at most " + MAX_LENGTH);
                }
                if (end - at - HEADER < length) {
                    break;
                }
                at += HEADER + length;
            }
            if (at > start) {
                out.add(in.readRetainedSlice(at - start));
            }
        }
    }
}
