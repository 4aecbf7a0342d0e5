package dev.felix.server.config;

/** A setting is invalid; the message names the setting, where its value came from, and the problem. */
public final class ConfigException extends Exception {
    public ConfigException(String message) {
        super(message);
    }
}
