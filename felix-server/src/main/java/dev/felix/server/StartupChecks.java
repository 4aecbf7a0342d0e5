package dev.felix.server;

import dev.felix.server.config.ConfigException;
import dev.felix.server.config.HostPort;
import java.io.IOException;
import java.net.BindException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Locale;

/**
 * What can stop a node from starting, said in terms of the setting to change: an unusable
 * {@code data_dir}, or a bind address that is taken or not local. Each check throws a
 * {@link ConfigException} naming the setting, its value, the problem and the way out. Stateless.
 */
final class StartupChecks {
    private StartupChecks() {
    }

    /**
     * Creates {@code dir} if needed and checks that it is a directory this process can write (by creating
     * and deleting a probe file in it), before anything is written there.
     */
    static void dataDirectory(Path dir) throws ConfigException {
        String setting = "data_dir " + dir + " (--data-dir, FELIX_DATA_DIR)";
        if (Files.exists(dir) && !Files.isDirectory(dir)) {
            throw new ConfigException(setting + " is a file, not a directory: point data_dir at a directory"
                    + " (it is created if missing)");
        }
        try {
            Files.createDirectories(dir);
        } catch (FileAlreadyExistsException e) {
            throw new ConfigException(setting + " cannot be created: " + e.getFile() + " is a file, not a directory");
        } catch (AccessDeniedException e) {
            throw new ConfigException(setting + " cannot be created: permission denied on " + e.getFile()
                    + "; choose a directory this user can write");
        } catch (IOException e) {
            throw new ConfigException(setting + " cannot be created: " + describe(e));
        }
        Path probe = dir.resolve(".felix-write-probe");
        try {
            Files.deleteIfExists(probe);
            Files.createFile(probe);
            Files.delete(probe);
        } catch (AccessDeniedException e) {
            throw new ConfigException(setting + " is not writable by this user (" + System.getProperty("user.name")
                    + "): fix its permissions or choose another directory");
        } catch (IOException e) {
            throw new ConfigException(setting + " is not usable: " + describe(e));
        }
    }

    /** The error for a listener that could not bind {@code address}, configured as {@code setting}. */
    static ConfigException bindFailed(String setting, HostPort address, Throwable e) {
        String why = bindReason(e);
        String flag = "--" + setting.replace('_', '-');
        return new ConfigException("could not listen on " + setting + " " + address + ": " + why + " (choose"
                + " another address with " + flag + " or FELIX_" + setting.toUpperCase(Locale.ROOT) + ")");
    }

    private static String bindReason(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            String m = String.valueOf(t.getMessage()).toLowerCase(Locale.ROOT);
            if (m.contains("address already in use") || m.contains("error(-98)")) {
                return "address already in use: another process listens there";
            }
            if (m.contains("cannot assign requested address") || m.contains("error(-99)")) {
                return "not an address of this machine";
            }
            if (m.contains("permission denied") || m.contains("error(-13)")) {
                return "permission denied (ports below 1024 need privileges)";
            }
            if (t instanceof BindException && t.getMessage() != null) {
                return t.getMessage().toLowerCase(Locale.ROOT);
            }
        }
        return String.valueOf(e.getMessage());
    }

    private static String describe(IOException e) {
        if (e instanceof NoSuchFileException n) {
            return "no such file or directory: " + n.getFile();
        }
        if (e instanceof java.nio.file.FileSystemException f && f.getReason() != null) {
            return f.getReason().toLowerCase(Locale.ROOT) + " (" + f.getFile() + ")";
        }
        return e.getClass().getSimpleName() + ": " + e.getMessage();
    }
}
