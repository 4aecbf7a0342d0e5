package dev.felix.client;

import dev.felix.wire.ErrorCode;
import dev.felix.wire.Message;
import dev.felix.wire.WirePayload;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * One request and its reply on a stream of their own (admin calls); the stream is closed afterwards.
 *
 * <p><b>Threads and buffers.</b> Called on the caller's thread, which waits for the reply (bounded by the request
 * timeout); the stream's callbacks run on the connection's event loop. The request is encoded into a new unpooled
 * frame owned by the channel once written; the reply frame is released by {@code FrameStream} after decoding.
 */
final class OneShotRequest {
    private OneShotRequest() {
    }

    /** Sends {@code request} and waits (up to the request timeout) for the reply; an {@code error} throws. */
    static Message send(FelixClient client, Message request) {
        NonBlockingScope.refuseWait("send a request and wait for its reply");
        CompletableFuture<Message> reply = new CompletableFuture<>();
        CompletableFuture<FrameStream> stream = FrameStream.open(client.connection(), client.config(),
                new FrameStream.Listener() {
                    @Override
                    public void onPayload(WirePayload payload) {
                        if (payload instanceof Message.ErrorMessage e) {
                            reply.completeExceptionally(ClientFrames.toException(e));
                        } else if (payload instanceof Message m) {
                            reply.complete(m);
                        }
                    }

                    @Override
                    public void onClosed(FelixClientException cause) {
                        reply.completeExceptionally(cause != null ? cause
                                : new FelixClientException(ErrorCode.CONNECTION_LOST, "no reply from the broker"));
                    }
                });
        stream.whenComplete((fs, err) -> {
            if (err != null) {
                reply.completeExceptionally(err);
            } else {
                fs.write(request);
            }
        });
        long timeout = client.config().requestTimeout().toMillis();
        try {
            return reply.get(timeout, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new FelixClientException(ErrorCode.UNAVAILABLE, "interrupted");
        } catch (ExecutionException e) {
            throw e.getCause() instanceof FelixClientException fe ? fe
                    : new FelixClientException(ErrorCode.INTERNAL, String.valueOf(e.getCause()));
        } catch (TimeoutException e) {
            throw new FelixClientException(ErrorCode.TIMEOUT, "no reply within " + timeout + " ms");
        } finally {
            stream.thenAccept(FrameStream::close);
        }
    }
}
