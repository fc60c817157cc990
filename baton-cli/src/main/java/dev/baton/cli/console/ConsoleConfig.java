package dev.baton.cli.console;

import dev.baton.Baton;
import dev.baton.cli.command.ConfigReleaseCommands;
import dev.baton.cli.command.GrayText;
import dev.baton.config.ConfigCenter;
import dev.baton.config.ConfigEntry;
import dev.baton.config.ConfigOptions;
import dev.baton.config.ConfigRevision;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The config centers the console shows ({@code --config PREFIX}): each key with its value and
 * version and its gray release, from the config center's own local copy (no request per
 * picture); history read from the ensemble only when asked; rollback, promote and abort as writes
 * of this client's identity. Opened with history kept and taking part in gray releases ({@code
 * baton-console}, no labels) so that it can promote and abort, but unannounced: the console is
 * not one of the instances a release reaches.
 */
public final class ConsoleConfig implements AutoCloseable {
  private final Map<String, ConfigCenter> centers = new LinkedHashMap<>();

  public ConsoleConfig(Baton baton, List<String> prefixes) {
    try {
      for (String prefix : prefixes) {
        ConfigCenter center = ConfigCenter.open(baton, prefix, ConfigOptions.defaults()
            .withHistory(ConfigReleaseCommands.DEFAULT_HISTORY).withInstance("baton-console", Map.of()).unannounced());
        centers.put(prefix, center);
      }
    } catch (RuntimeException e) {
      close();
      throw e;
    }
  }

  /** Runs {@code onChange} after every change of a key a config center shows. */
  void listen(Runnable onChange) {
    centers.values().forEach(center -> center.addListener((key, oldValue, newValue) -> onChange.run()));
  }

  /** Each config center's keys, JSON-ready. */
  public List<Object> snapshot() {
    List<Object> views = new ArrayList<>();
    centers.forEach((prefix, center) -> {
      List<Object> keys = new ArrayList<>();
      for (String key : new TreeMap<>(center.snapshot()).keySet()) {
        center.entry(key).ifPresent(entry -> keys.add(key(center, entry)));
      }
      Map<String, Object> view = new LinkedHashMap<>();
      view.put("prefix", prefix);
      view.put("synced", center.isSynced());
      view.put("keys", keys);
      views.add(view);
    });
    return views;
  }

  private static Map<String, Object> key(ConfigCenter center, ConfigEntry entry) {
    Map<String, Object> key = new LinkedHashMap<>();
    key.put("key", entry.key());
    key.put("value", entry.value());
    key.put("version", entry.version());
    key.put("gray", center.gray(entry.key()).map(g -> Map.of("candidate", g.candidate(), "rule", GrayText.rule(g.rule())))
        .orElse(null));
    return key;
  }

  private ConfigCenter center(String prefix) {
    ConfigCenter center = centers.get(prefix);
    if (center == null) {
      throw new IllegalArgumentException("the console does not show the config prefix '" + prefix
          + "' (start it with --config " + prefix + ")");
    }
    return center;
  }

  List<Object> history(String prefix, String key) {
    List<Object> revisions = new ArrayList<>();
    for (ConfigRevision r : center(prefix).history(key)) {
      Map<String, Object> revision = new LinkedHashMap<>();
      revision.put("version", r.version());
      revision.put("operation", r.operation());
      revision.put("value", r.value().orElse(null));
      revision.put("host", r.host());
      revision.put("pid", r.pid());
      revision.put("authId", r.authId().orElse(null));
      revision.put("time", r.time().toString());
      revisions.add(revision);
    }
    return revisions;
  }

  ConfigEntry rollback(String prefix, String key, int version) {
    return center(prefix).rollback(key, version);
  }

  ConfigEntry promote(String prefix, String key) {
    return center(prefix).promote(key);
  }

  boolean abort(String prefix, String key) {
    return center(prefix).abort(key);
  }

  @Override
  public void close() {
    centers.values().forEach(ConfigCenter::close);
  }
}
