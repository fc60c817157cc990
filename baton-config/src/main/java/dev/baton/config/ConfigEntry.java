package dev.baton.config;

/**
 * One key of a {@link ConfigCenter} as the local copy holds it: its value and the version of its
 * node (ZooKeeper's data version: 0 when created, one more with every write). Pass the version to
 * {@link ConfigCenter#compareAndSet} or {@link ConfigCenter#deleteIfVersion} to write only if
 * nobody wrote since.
 *
 * @param key the key, relative to the config center's prefix ({@code db/url})
 * @param value the value, UTF-8 text; empty, never null
 * @param version the node's data version
 */
public record ConfigEntry(String key, String value, int version) {}
