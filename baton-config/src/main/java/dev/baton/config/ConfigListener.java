package dev.baton.config;

/**
 * Told of each change of a {@link ConfigCenter}'s local copy, after the copy changed: a key
 * created ({@code oldValue} null), changed, or deleted ({@code newValue} null). Called once per
 * change, in the order of the changes, on the executor given with the listener, one call at a
 * time; a write that leaves a key's value as it was (the same text again) is no change.
 */
@FunctionalInterface
public interface ConfigListener {
  void changed(String key, String oldValue, String newValue);
}
