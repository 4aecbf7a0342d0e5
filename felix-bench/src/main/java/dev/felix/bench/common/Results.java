package dev.felix.bench.common;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.LinkedHashMap;
import java.util.Map;

/** Writes benchmark results as JSON files under a results directory, with the machine described. */
public final class Results {

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
            .enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS);

    private Results() {
    }

    /** Writes {@code dir/<name>-<timestamp>.json} and returns its path. */
    public static Path write(Path dir, String name, Map<String, Object> result) throws IOException {
        Files.createDirectories(dir);
        String stamp = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss").withZone(ZoneOffset.UTC).format(Instant.now());
        Path file = dir.resolve(name + "-" + stamp + ".json");
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("benchmark", name);
        doc.put("time", Instant.now().toString());
        doc.put("environment", environment());
        doc.put("result", result);
        JSON.writeValue(file.toFile(), doc);
        return file;
    }

    /**
     * Writes {@code text} (the console tables of a run) beside a JSON file written by {@link #write}, under
     * the same name with {@code .txt}, and returns its path: the tables a reader quotes and the figures
     * behind them stay paired.
     */
    public static Path writeText(Path json, String text) throws IOException {
        String name = json.getFileName().toString().replaceFirst("\\.json$", "") + ".txt";
        Path file = json.resolveSibling(name);
        Files.writeString(file, text, java.nio.charset.StandardCharsets.UTF_8);
        return file;
    }

    /** The value after the colon of the first line starting with {@code key} in a /proc file, or "unknown". */
    private static String procLine(String file, String key) {
        try (java.util.stream.Stream<String> lines = Files.lines(Path.of(file))) {
            return lines.filter(l -> l.startsWith(key)).map(l -> l.substring(l.indexOf(':') + 1).trim()).findFirst()
                    .orElse("unknown");
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }

    /** Facts about this machine and JVM that a result depends on. */
    public static Map<String, Object> environment() {
        Map<String, Object> env = new LinkedHashMap<>();
        env.put("cpus", Runtime.getRuntime().availableProcessors());
        env.put("java", Runtime.version().toString());
        env.put("jvm_args", ManagementFactory.getRuntimeMXBean().getInputArguments());
        env.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version"));
        env.put("max_heap_mb", Runtime.getRuntime().maxMemory() >> 20);
        env.put("cpu_model", procLine("/proc/cpuinfo", "model name"));
        env.put("mem_total", procLine("/proc/meminfo", "MemTotal"));
        env.put("gc", ManagementFactory.getGarbageCollectorMXBeans().stream().map(b -> b.getName()).toList());
        try {
            env.put("host", java.net.InetAddress.getLocalHost().getHostName());
        } catch (IOException e) {
            env.put("host", "unknown");
        }
        return env;
    }
}
