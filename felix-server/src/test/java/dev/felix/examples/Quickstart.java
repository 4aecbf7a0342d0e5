package dev.felix.examples;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.felix.client.Cache;
import dev.felix.client.CacheMirror;
import dev.felix.client.CacheRef;
import dev.felix.client.ClientConfig;
import dev.felix.client.Event;
import dev.felix.client.FelixClient;
import dev.felix.client.Gap;
import dev.felix.client.Item;
import dev.felix.client.PublishAck;
import dev.felix.client.Publisher;
import dev.felix.client.StreamRef;
import dev.felix.client.SubscribeOptions;
import dev.felix.client.Subscription;
import dev.felix.transport.ClientTrust;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** Publish, subscribe (gaps included) and mirror a cache, against a broker started with ./felix server. */
public final class Quickstart {

    public static void main(String[] args) throws Exception {
        // `./felix server` in this directory: QUIC on 127.0.0.1:5000, its certificate in data/tls/cert.pem.
        run(new InetSocketAddress("127.0.0.1", 5000), Path.of("data/tls/cert.pem"), System.out);
    }

    public static void run(InetSocketAddress broker, Path certificate, PrintStream out) throws Exception {
        ClientConfig config = ClientConfig.builder(ClientTrust.certificates(certificate))
                .broker(broker)
                .tenant("t1")                      // .token("...") for a broker with auth_tokens
                .build();
        try (FelixClient client = FelixClient.connect(config)) {
            StreamRef orders = StreamRef.parse("t1/default/orders");

            // Subscribe from the oldest event the broker still holds, then publish three.
            try (Subscription subscription = client.subscribe(SubscribeOptions.of(orders).fromEarliest())) {
                Publisher publisher = client.publisher(orders);
                for (int i = 1; i <= 3; i++) {
                    PublishAck ack = publisher.publish(("order " + i).getBytes(UTF_8)); // waits for the ack
                    out.println("published at offset " + ack.firstOffset());
                }
                int received = 0;
                while (received < 3) {
                    Item item = subscription.next(Duration.ofSeconds(5));
                    if (item instanceof Event event) {
                        out.println("event " + event.offset() + ": " + new String(event.payload(), UTF_8));
                        received++;
                    } else if (item instanceof Gap gap) {
                        // Loss is never silent: the exact range this subscriber missed, and why.
                        out.println("missed offsets " + gap.from() + ".." + gap.to() + " (" + gap.reason() + ")");
                    } else {
                        throw new IllegalStateException("no event within 5 s");
                    }
                }
            }

            // A local copy of a cache that follows every change, and catches up after any stall.
            CacheRef routes = CacheRef.parse("t1/default/routes");
            try (Cache cache = client.cache(routes)) {
                cache.put("eu", "10.0.0.1".getBytes(UTF_8), null);
            }
            try (CacheMirror mirror = client.mirror(routes, null)) {   // returns once the snapshot is applied
                out.println("mirror: eu = " + new String(mirror.get("eu").orElseThrow(), UTF_8));
                CountDownLatch usArrived = new CountDownLatch(1);
                mirror.addListener((key, value, offset) -> {      // on the connection's event loop: be quick
                    out.println("change " + offset + ": " + key + " = " + (value == null ? "(deleted)" : new String(value, UTF_8)));
                    if (key.equals("us")) {
                        usArrived.countDown();
                    }
                });
                try (Cache cache = client.cache(routes)) {
                    cache.put("us", "10.0.0.2".getBytes(UTF_8), null);
                }
                if (!usArrived.await(5, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("the mirror did not follow within 5 s");
                }
                out.println("mirror: " + mirror.size() + " keys");
            }
        }
    }
}
