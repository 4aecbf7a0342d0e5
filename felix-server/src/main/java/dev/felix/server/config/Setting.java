package dev.felix.server.config;

import java.util.Locale;
import java.util.function.Function;

/**
 * One configuration setting: its YAML key, environment variable, default and parser. The table of
 * all settings is {@link Settings#ALL}; {@code docs/configuration.md} documents exactly that table
 * (a test checks it).
 *
 * @param key          YAML key and canonical name, snake_case
 * @param defaultText  default as it would be written in YAML ({@code null}: no default, e.g. optional file)
 * @param doc          one-line explanation
 * @param parser       turns a text value into the typed value; throws IllegalArgumentException with a
 *                     message saying what is wrong
 */
public record Setting<T>(String key, String defaultText, String doc, Function<String, T> parser) {

    /** The environment variable: {@code FELIX_} + upper-case key. */
    public String env() {
        return "FELIX_" + key.toUpperCase(Locale.ROOT);
    }

    /** The command-line flag: {@code --} + key with dashes. */
    public String flag() {
        return "--" + key.replace('_', '-');
    }
}
