package dev.felix.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.ref.Reference;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The heap soft maximum: the rule, and the real thing in a child JVM running ZGC (the test JVM's collector is
 * not ZGC, and the setting is process-wide).
 */
class HeapSoftMaxTest {

    private static final long MIB = 1 << 20;
    private static final long FLOOR = 1024 * MIB;
    private static final long MAX = 6144 * MIB;

    @Test
    void followsTheHeapAboveTheFloorAndUnderTheMaximum() {
        assertThat(HeapSoftMax.next(FLOOR, 100 * MIB, true, FLOOR, MAX)).isEqualTo(FLOOR);
        assertThat(HeapSoftMax.next(FLOOR, 800 * MIB, true, FLOOR, MAX)).isEqualTo(1600 * MIB);
        assertThat(HeapSoftMax.next(FLOOR, 800 * MIB, false, FLOOR, MAX)).as("a minor collection raises it too")
                .isEqualTo(1600 * MIB);
        assertThat(HeapSoftMax.next(FLOOR, 5000 * MIB, true, FLOOR, MAX)).isEqualTo(MAX);
    }

    @Test
    void lowersOnlyAfterAMajorCollectionAndOnlyByAQuarterOrMore() {
        long current = 2000 * MIB;
        assertThat(HeapSoftMax.next(current, 600 * MIB, false, FLOOR, MAX)).as("minor").isEqualTo(current);
        assertThat(HeapSoftMax.next(current, 800 * MIB, true, FLOOR, MAX)).as("1600 > 3/4 of 2000")
                .isEqualTo(current);
        assertThat(HeapSoftMax.next(current, 700 * MIB, true, FLOOR, MAX)).isEqualTo(1400 * MIB);
        assertThat(HeapSoftMax.next(current, 10 * MIB, true, FLOOR, MAX)).isEqualTo(FLOOR);
    }

    @Test
    void setsTheFloorAtStartAndRaisesItWhenTheLiveHeapOutgrowsIt() throws Exception {
        List<String> out = child("-XX:+UseZGC", "-Xmx1g", "-D" + HeapSoftMax.FLOOR_PROPERTY + "=64");
        assertThat(out).contains("installed true " + 64 * MIB);
        long after = Long.parseLong(line(out, "after ").split(" ")[1]);
        long flag = Long.parseLong(line(out, "flag ").split(" ")[1]);
        assertThat(after).as("twice the 160 MiB kept live").isGreaterThanOrEqualTo(320 * MIB).isLessThan(1024 * MIB);
        assertThat(flag).as("the JVM's own SoftMaxHeapSize").isEqualTo(after);
    }

    @Test
    void leavesASoftMaximumSetByHandAndOtherCollectorsAlone() throws Exception {
        assertThat(child("-XX:+UseZGC", "-Xmx1g", "-XX:SoftMaxHeapSize=256m", "-D" + HeapSoftMax.FLOOR_PROPERTY + "=64"))
                .contains("installed false -1", "flag " + 256 * MIB);
        assertThat(child("-XX:+UseSerialGC", "-Xmx1g", "-D" + HeapSoftMax.FLOOR_PROPERTY + "=64"))
                .contains("installed false -1");
        assertThat(child("-XX:+UseZGC", "-Xmx1g", "-D" + HeapSoftMax.FLOOR_PROPERTY + "=0"))
                .as("0 turns it off").contains("installed false -1");
    }

    private static String line(List<String> out, String prefix) {
        return out.stream().filter(l -> l.startsWith(prefix)).findFirst()
                .orElseThrow(() -> new AssertionError("no line starting '" + prefix + "' in " + out));
    }

    private static List<String> child(String... jvmOptions) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.addAll(List.of(jvmOptions));
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), Probe.class.getName()));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        boolean exited = process.waitFor(60, TimeUnit.SECONDS);
        String text = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!exited) {
            process.destroyForcibly();
        }
        assertThat(exited).as("the child JVM exits within 60 s: " + text).isTrue();
        assertThat(process.exitValue()).as(text).isZero();
        return text.lines().toList();
    }

    /** The child JVM: installs, keeps 160 MiB live, collects, and reports what the soft maximum became. */
    static final class Probe {
        public static void main(String[] args) throws Exception {
            boolean acted = HeapSoftMax.install();
            System.out.println("installed " + acted + " " + HeapSoftMax.current());
            HotSpotDiagnosticMXBean hotspot = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
            if (acted) {
                byte[][] live = new byte[160][];
                for (int i = 0; i < live.length; i++) {
                    live[i] = new byte[(int) MIB];
                }
                // System.gc() is a major cycle; its notification arrives on a JVM thread of its own
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                        .until(() -> {
                            System.gc();
                            return HeapSoftMax.current() != 64 * MIB;
                        });
                System.out.println("after " + HeapSoftMax.current());
                Reference.reachabilityFence(live);
            }
            System.out.println("flag " + hotspot.getVMOption("SoftMaxHeapSize").getValue());
        }
    }
}
