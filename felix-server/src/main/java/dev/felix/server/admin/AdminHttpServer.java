package dev.felix.server.admin;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The admin HTTP endpoint: {@code /live} (the process is up), {@code /ready} (it accepts traffic; 503
 * while starting or draining) and {@code /metrics} (Prometheus text format). Served by the JDK's
 * built-in HTTP server on one small thread: it is never on the data path.
 */
public final class AdminHttpServer implements AutoCloseable {

    private final HttpServer server;
    private final ExecutorService executor;

    private AdminHttpServer(HttpServer server, ExecutorService executor) {
        this.server = server;
        this.executor = executor;
    }

    public static AdminHttpServer start(InetSocketAddress address, BooleanSupplier ready,
            Supplier<String> metrics) throws IOException {
        HttpServer server = HttpServer.create(address, 16);
        ExecutorService executor = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "felix-admin-http");
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(executor);
        server.createContext("/live", ex -> reply(ex, 200, "text/plain", "live\n"));
        server.createContext("/ready", ex -> {
            boolean ok = ready.getAsBoolean();
            reply(ex, ok ? 200 : 503, "text/plain", ok ? "ready\n" : "not ready\n");
        });
        server.createContext("/metrics", ex -> reply(ex, 200, "text/plain; version=0.0.4; charset=utf-8",
                metrics.get()));
        server.createContext("/", ex -> reply(ex, 404, "text/plain",
                "not found; try /live, /ready or /metrics\n"));
        server.start();
        return new AdminHttpServer(server, executor);
    }

    public InetSocketAddress address() {
        return server.getAddress();
    }

    private static void reply(HttpExchange exchange, int status, String contentType, String body)
            throws IOException {
        try (exchange) {
            if (!"GET".equals(exchange.getRequestMethod()) && !"HEAD".equals(exchange.getRequestMethod())) {
                status = 405;
                body = "method not allowed\n";
            }
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", contentType);
            boolean head = "HEAD".equals(exchange.getRequestMethod());
            exchange.sendResponseHeaders(status, head ? -1 : bytes.length);
            if (!head) {
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(bytes);
                }
            }
        }
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
