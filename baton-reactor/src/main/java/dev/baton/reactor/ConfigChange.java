package dev.baton.reactor;

/**
 * One change of a config key as a config center's listeners hear it: {@code oldValue} is null
 * when the key was created, {@code newValue} null when it was deleted.
 */
public record ConfigChange(String key, String oldValue, String newValue) {}
