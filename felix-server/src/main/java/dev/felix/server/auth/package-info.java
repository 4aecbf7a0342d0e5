/**
 * Who may use a tenant: the {@link dev.felix.server.auth.Authenticator} a node checks every {@code auth} message
 * with; {@link dev.felix.server.auth.DevModeAuthenticator} (no tokens configured: any token, loopback only) and
 * {@link dev.felix.server.auth.StaticTokenAuthenticator} (the {@code auth_tokens} setting). Plain Java; tokens are
 * never logged.
 */
package dev.felix.server.auth;
