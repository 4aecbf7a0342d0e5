/**
 * The admin HTTP endpoint of a node ({@link dev.felix.server.admin.AdminHttpServer}): {@code /live},
 * {@code /ready} and {@code /metrics} (Prometheus text). It uses the JDK's HTTP server, not Netty, so it keeps
 * answering while the QUIC side is busy.
 */
package dev.felix.server.admin;
