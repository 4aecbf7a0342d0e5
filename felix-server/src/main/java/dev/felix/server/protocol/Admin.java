package dev.felix.server.protocol;

import dev.felix.core.ErrorCode;
import dev.felix.core.FelixError;
import dev.felix.core.FelixException;
import dev.felix.core.StreamConfig;
import dev.felix.core.StreamName;
import dev.felix.core.stream.ShardInfo;
import dev.felix.core.stream.StreamInfo;
import dev.felix.wire.Message;
import dev.felix.wire.StreamDescription;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** Stream admin requests: {@code stream_create}, {@code stream_describe}, {@code stream_list}. */
final class Admin {
    private Admin() {
    }

    /** The reply to an admin request from a stream authenticated for {@code tenant}. */
    static Message handle(ServerContext context, String tenant, Message request, int negotiated) {
        Long requestId = null;
        try {
            if (request instanceof Message.StreamCreate c) {
                requestId = c.requestId();
                StreamName name = name(tenant, c.tenantId(), c.namespace(), c.stream());
                StreamConfig config = config(c);
                return new Message.StreamInfo(describe(context.broker.createStream(name, config).info()), requestId);
            }
            if (request instanceof Message.StreamDescribe d) {
                requestId = d.requestId();
                StreamName name = name(tenant, d.tenantId(), d.namespace(), d.stream());
                var stream = context.broker.find(name).orElseThrow(
                        () -> new FelixException(ErrorCode.NOT_FOUND, "stream '" + name + "' not found"));
                return new Message.StreamInfo(describe(stream.info()), requestId);
            }
            Message.StreamList l = (Message.StreamList) request;
            requestId = l.requestId();
            if (!tenant.equals(l.tenantId())) {
                throw new FelixException(ErrorCode.FORBIDDEN, "tenant mismatch");
            }
            List<StreamDescription> streams = new ArrayList<>();
            for (StreamInfo info : context.broker.list(l.tenantId(), l.namespace())) {
                streams.add(describe(info));
            }
            return new Message.StreamListResult(streams, requestId);
        } catch (FelixException e) {
            context.metrics.error(e.code());
            return Frames.error(e.error(), requestId, negotiated);
        } catch (IllegalArgumentException e) {
            context.metrics.error(ErrorCode.BAD_REQUEST);
            return Frames.error(FelixError.of(ErrorCode.BAD_REQUEST, e.getMessage()), requestId, negotiated);
        }
    }

    private static StreamName name(String tenant, String tenantId, String namespace, String stream)
            throws FelixException {
        if (!tenant.equals(tenantId)) {
            throw new FelixException(ErrorCode.FORBIDDEN, "tenant mismatch: this stream is authenticated for '"
                    + tenant + "'");
        }
        return new StreamName(tenantId, namespace, stream);
    }

    private static StreamConfig config(Message.StreamCreate c) {
        int shards = c.shards() == null ? 1 : c.shards();
        boolean durable = Boolean.TRUE.equals(c.durable());
        StreamConfig.Fsync fsync = c.fsync() == null ? StreamConfig.Fsync.PERIODIC : StreamConfig.Fsync.parse(c.fsync());
        long retentionBytes = c.retentionBytes() == null ? 0 : c.retentionBytes();
        Duration age = c.retentionAgeMs() == null ? null : Duration.ofMillis(c.retentionAgeMs());
        if (!durable && (c.fsync() != null)) {
            throw new IllegalArgumentException("fsync applies to durable streams only");
        }
        return new StreamConfig(shards, durable, fsync, retentionBytes, age);
    }

    static StreamDescription describe(StreamInfo info) {
        StreamConfig c = info.config();
        List<dev.felix.wire.ShardInfo> shards = new ArrayList<>();
        for (ShardInfo s : info.shards()) {
            shards.add(new dev.felix.wire.ShardInfo(s.shard(), s.oldestOffset(), s.nextOffset()));
        }
        StreamName n = info.name();
        return new StreamDescription(n.tenant(), n.namespace(), n.stream(), c.shards(), c.durable(),
                c.durable() ? c.fsync().wireName() : null,
                c.retentionBytes() > 0 ? c.retentionBytes() : null,
                c.retentionAge() != null ? c.retentionAge().toMillis() : null,
                shards);
    }
}
