package dev.felix.bench.watch;

import dev.felix.bench.common.PeerProcess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** A peer system run from an installed binary; unavailable (and so skipped) when the binary is missing. */
abstract class PeerSystem implements WatchSystem {

    private final String name;
    private final String binary;
    private String version;

    PeerSystem(String name, String binary) {
        this.name = name;
        this.binary = binary;
    }

    @Override
    public final String name() {
        return name;
    }

    @Override
    public final String unavailable() {
        return PeerProcess.which(binary).isPresent() ? null
                : binary + " not installed (run bench/peers/install.sh)";
    }

    /** The binary's absolute path; only call when {@link #unavailable()} is null. */
    final Path path() {
        Optional<Path> p = PeerProcess.which(binary);
        return p.orElseThrow(() -> new IllegalStateException(unavailable()));
    }

    /** The first line of {@code binary --version}, or the binary's name if it says nothing. */
    final synchronized String version() {
        if (version == null) {
            version = binary;
            try {
                Process p = new ProcessBuilder(path().toString(), "--version").redirectErrorStream(true).start();
                String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
                p.waitFor(10, TimeUnit.SECONDS);
                if (!out.isEmpty()) {
                    version = out.lines().findFirst().orElse(binary).trim();
                }
            } catch (IOException e) {
                // keep the binary's name
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return version;
    }
}
