package dev.felix.bench.micro;

import dev.felix.wire.AckMode;
import dev.felix.wire.BinaryPublishBatch;
import dev.felix.wire.EventBatchEncoder;
import dev.felix.wire.Frame;
import dev.felix.wire.Message;
import dev.felix.wire.WireCodec;
import dev.felix.wire.WireException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The wire codec on the publish and delivery paths: a JSON acked publish (the latency profile's frame),
 * a binary publish batch (the throughput profile's), and a shared event batch with offsets (what a
 * subscriber receives), each encoded and decoded. Average time per operation.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class CodecJmh {

    @Param({"256", "1024"})
    public int payload;

    @Param({"64"})
    public int batch;

    private Message.Publish publish;
    private byte[] publishJson;
    private BinaryPublishBatch publishBatch;
    private ByteBuffer publishBatchOut;
    private ByteBuffer publishBatchPayload;
    private List<byte[]> events;
    private ByteBuffer eventBatchOut;
    private ByteBuffer eventBatchPayload;
    private int eventBatchFlags;
    private long requestId;

    @Setup
    public void setUp() throws WireException {
        byte[] body = new byte[payload];
        for (int i = 0; i < body.length; i++) {
            body[i] = (byte) i;
        }
        publish = new Message.Publish("t1", "bench", "codec", body, 1L, AckMode.PER_MESSAGE, null, null);
        publishJson = WireCodec.encodeJson(publish);
        events = new ArrayList<>();
        for (int i = 0; i < batch; i++) {
            events.add(body.clone());
        }
        publishBatch = new BinaryPublishBatch("t1", "bench", "codec", events);
        publishBatchOut = ByteBuffer.allocate(WireCodec.frameLength(publishBatch));
        byte[] frame = WireCodec.encodeFrame(publishBatch);
        publishBatchPayload = WireCodec.readFrame(ByteBuffer.wrap(frame), WireCodec.DEFAULT_MAX_FRAME_BYTES).payload();
        eventBatchOut = ByteBuffer.allocate(EventBatchEncoder.sharedFrameLength(true, events));
        EventBatchEncoder.encodeSharedWithOffset(eventBatchOut, 1_000L, events);
        eventBatchOut.flip();
        Frame f = WireCodec.readFrame(eventBatchOut.duplicate(), WireCodec.DEFAULT_MAX_FRAME_BYTES);
        eventBatchFlags = f.flags();
        eventBatchPayload = f.payload();
    }

    @Benchmark
    public byte[] jsonPublishEncode() {
        // A fresh record per call, as the client builds one per publish.
        return WireCodec.encodeFrame(new Message.Publish("t1", "bench", "codec", publish.payload(), ++requestId,
                AckMode.PER_MESSAGE, null, null));
    }

    @Benchmark
    public Message jsonPublishDecode() throws WireException {
        return WireCodec.decodeJson(publishJson);
    }

    @Benchmark
    public int binaryPublishBatchEncode() {
        publishBatchOut.clear();
        WireCodec.encodeFrame(new BinaryPublishBatch("t1", "bench", "codec", events), publishBatchOut);
        return publishBatchOut.position();
    }

    @Benchmark
    public BinaryPublishBatch binaryPublishBatchDecode() throws WireException {
        return WireCodec.decodePublishBatch(publishBatchPayload);
    }

    @Benchmark
    public int eventBatchEncode() {
        eventBatchOut.clear();
        EventBatchEncoder.encodeSharedWithOffset(eventBatchOut, 1_000L, events);
        return eventBatchOut.position();
    }

    @Benchmark
    public Object eventBatchDecode() throws WireException {
        return WireCodec.decodeSharedEventBatch(eventBatchFlags, eventBatchPayload);
    }
}
