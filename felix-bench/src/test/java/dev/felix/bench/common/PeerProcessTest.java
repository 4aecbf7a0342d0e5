package dev.felix.bench.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PeerProcessTest {

    @TempDir
    Path dir;

    /** A stand-in peer: listens on the port given, prints a line, and waits to be stopped. */
    public static void main(String[] args) throws Exception {
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress("127.0.0.1", Integer.parseInt(args[0])));
            System.out.println("listening on " + args[0]);
            System.out.flush();
            while (true) {
                s.accept().close();
            }
        }
    }

    private static String java() {
        return ProcessHandle.current().info().command().orElse("java");
    }

    @Test
    void which_findsInstalledBinaries_only() {
        assertThat(PeerProcess.which("sh")).hasValueSatisfying(p -> assertThat(p).isAbsolute().isExecutable());
        assertThat(PeerProcess.which("no-such-peer-binary-" + System.nanoTime())).isEmpty();
    }

    @Test
    void start_waitsForThePort_readsItsCpu_andCloseStopsIt() throws Exception {
        int port = PeerProcess.freePort();
        PeerProcess peer = PeerProcess.start("fake-peer", List.of(java(), "-cp", System.getProperty("java.class.path"),
                PeerProcessTest.class.getName(), Integer.toString(port)), port, dir, Duration.ofSeconds(30));
        try {
            assertThat(peer.port()).isEqualTo(port);
            assertThat(peer.cpuNanos()).isPositive(); // a JVM that started has used some CPU
            assertThat(ProcessHandle.of(peer.pid())).hasValueSatisfying(h -> assertThat(h.isAlive()).isTrue());
        } finally {
            peer.close();
        }
        assertThat(ProcessHandle.of(peer.pid()).map(ProcessHandle::isAlive).orElse(false)).isFalse();
        assertThat(Files.readString(dir.resolve("fake-peer.log"))).contains("listening on " + port);
    }

    @Test
    void start_aPeerThatExits_failsWithItsLogTail() {
        int port = PeerProcess.freePort();
        assertThatThrownBy(() -> PeerProcess.start("broken", List.of("sh", "-c", "echo cannot bind: boom; exit 3"),
                port, dir, Duration.ofSeconds(10)))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("broken exited with status 3")
                .hasMessageContaining("cannot bind: boom");
    }
}
