package dev.felix.cli;

/**
 * A {@code TENANT} or {@code TENANT/NAMESPACE} argument, as the list commands take it.
 *
 * @param namespace null for every namespace of the tenant
 */
record Scope(String tenant, String namespace) {

    /** Parses the argument; a usage error names what was expected. */
    static Scope parse(String text) {
        String[] parts = text.split("/", -1);
        if (parts.length > 2 || parts[0].isEmpty() || (parts.length == 2 && parts[1].isEmpty())) {
            throw new Errors.UsageException("expected TENANT or TENANT/NAMESPACE, got '" + text + "'");
        }
        return new Scope(parts[0], parts.length == 2 ? parts[1] : null);
    }
}
