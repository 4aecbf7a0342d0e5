package dev.felix.bench.common;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The progress output of a bench command: a few lines when piped, one line redrawn in place on a terminal,
 * whatever the number of runs. {@code felix bench latency}'s defaults are 41 runs (one warm-up, 4 payloads x
 * 2 fanouts x 5 runs), each reporting every percent; it used to print 440 lines when piped.
 */
class ProgressLineTest {

    private static final long SECOND = 1_000_000_000L;

    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
    private final AtomicLong now = new AtomicLong();

    private String text() {
        return bytes.toString(StandardCharsets.UTF_8);
    }

    /** Runs {@code steps} steps of 100 updates each, {@code tick} nanoseconds of fake time apart. */
    private void runSteps(ProgressLine line, int steps, long tick) {
        for (int s = 1; s <= steps; s++) {
            Progress p = line.step("felix payload=256 fanout=10 run " + s + "/" + steps, 100);
            for (int done = 1; done <= 100; done++) {
                now.addAndGet(tick);
                p.update(done);
            }
        }
    }

    @Test
    void piped_41RunsOfEveryPercent_printALineAtEachTenthAndOneAtTheEnd() {
        ProgressLine line = new ProgressLine(out, "latency", 41, "runs", false, now::get);

        runSteps(line, 41, SECOND / 4);
        line.finish();

        List<String> lines = text().lines().toList();
        assertThat(lines).hasSize(10);
        assertThat(lines.get(0)).startsWith("latency: 10% (4 of 41 runs, ");
        assertThat(lines.get(8)).startsWith("latency: 90% (36 of 41 runs, ").contains("left");
        assertThat(lines.get(9)).isEqualTo("latency: done, 41 runs in 17:05");
        assertThat(text()).doesNotContain("\r");
    }

    @Test
    void piped_oneStepOfManyUpdates_isStillAFewLines() {
        ProgressLine line = new ProgressLine(out, "storage", 1, "runs", false, now::get);
        Progress p = line.step("on_commit writers=64 batch=16", 200_000);
        for (long done = 0; done <= 200_000; done += 7) {
            p.update(done);
        }
        line.finish();

        assertThat(text().lines().count()).isEqualTo(10); // 10%..90%, then done
    }

    @Test
    void piped_messagesGetLinesOfTheirOwn_detailsDoNot() {
        ProgressLine line = new ProgressLine(out, "watch", 2, "runs", false, now::get);
        line.message("[watch] etcd: skipped, etcd not installed");
        line.step("felix, 1 watcher, run 1/1", 1);
        line.detail("ramp 3,375/s: ok");
        line.message("[watch] felix, 1 watcher, run 1/1 FAILED: diverged");
        line.finish();

        assertThat(text().lines().toList()).containsExactly("[watch] etcd: skipped, etcd not installed",
                "[watch] felix, 1 watcher, run 1/1 FAILED: diverged", "watch: done, 1 runs in 0:00");
    }

    @Test
    void terminal_isOneLineRedrawnInPlace_atMostTenTimesASecond_neverWiderThanTheScreen() {
        ProgressLine line = new ProgressLine(out, "latency", 41, "runs", true, now::get);

        runSteps(line, 41, SECOND / 100); // 4,100 updates over 41 s of fake time

        String text = text();
        assertThat(text).doesNotContain("\n");
        String[] draws = Arrays.stream(text.split("\r")).filter(s -> !s.isEmpty()).toArray(String[]::new);
        assertThat(draws.length).isBetween(300, 420); // about ten a second, not one per update
        for (String draw : draws) {
            String visible = draw.replace("\033[K", "");
            assertThat(visible.length()).as(visible).isLessThanOrEqualTo(ProgressLine.WIDTH);
            assertThat(visible).startsWith("latency [");
        }
        assertThat(draws[draws.length - 1]).contains("100%").contains("41/41");

        line.finish();
        assertThat(text().chars().filter(c -> c == '\n').count()).as("newlines").isEqualTo(1);
        assertThat(text()).endsWith("\r\033[Klatency: done, 41 runs in 0:41\n");
    }

    @Test
    void terminal_updatesFasterThanTenASecond_areNotAllDrawn() {
        ProgressLine line = new ProgressLine(out, "latency", 1, "runs", true, now::get);
        Progress p = line.step("felix", 1_000);
        for (int i = 1; i <= 1_000; i++) {
            now.addAndGet(SECOND / 1_000); // 1 s in all
            p.update(i);
        }

        long draws = text().chars().filter(c -> c == '\r').count();
        assertThat(draws).isBetween(9L, 12L);
    }

    @Test
    void terminal_aMessageClearsTheLivelineAndRedrawsItAfter() {
        ProgressLine line = new ProgressLine(out, "latency", 2, "runs", true, now::get);
        line.step("felix payload=0 fanout=1 run 1/1", 100).update(50);
        line.message("latency nats FAILED: lost 3");

        String text = text();
        String message = "\r\033[Klatency nats FAILED: lost 3\n";
        int at = text.indexOf(message);
        assertThat(at).isPositive();
        assertThat(text.substring(0, at)).startsWith("\rlatency [").doesNotContain("\n");
        assertThat(text.substring(at + message.length())).startsWith("\rlatency [").doesNotContain("\n");
    }

    @Test
    void updatesOfAStepThatIsNoLongerCurrent_areIgnored() {
        ProgressLine line = new ProgressLine(out, "latency", 2, "runs", false, now::get);
        Progress first = line.step("a", 100);
        line.step("b", 100);

        first.update(100); // a straggling thread of the first run

        assertThat(line.fraction()).isEqualTo(0.5);
        assertThat(text()).isEmpty();
    }

    @Test
    void clock_readsMinutesAndHours() {
        assertThat(ProgressLine.clock(0)).isEqualTo("0:00");
        assertThat(ProgressLine.clock(65 * SECOND)).isEqualTo("1:05");
        assertThat(ProgressLine.clock(3_725 * SECOND)).isEqualTo("1:02:05");
    }
}
