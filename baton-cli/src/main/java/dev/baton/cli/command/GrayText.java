package dev.baton.cli.command;

import dev.baton.config.ConfigInstance;
import dev.baton.config.GrayRelease;
import dev.baton.config.GrayRule;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Gray rules and releases as users write them on the command line ({@code labels zone=eu-1},
 * {@code ids a,b}, {@code percent 10}) rather than as the library's records print themselves.
 */
public final class GrayText {
  private GrayText() {}

  /** The rule in the words of {@code config gray set}'s options; criteria a rule combines are joined by "or". */
  public static String rule(GrayRule rule) {
    List<String> parts = new ArrayList<>();
    if (!rule.labels().isEmpty()) {
      parts.add("labels " + labels(rule.labels()));
    }
    if (!rule.ids().isEmpty()) {
      parts.add("ids " + String.join(",", new TreeSet<>(rule.ids())));
    }
    if (rule.percent() > 0) {
      parts.add("percent " + rule.percent());
    }
    return String.join(" or ", parts);
  }

  /** {@code k=v,k2=v2}, in key order, as {@code --labels} takes them; {@code (none)} if empty. */
  static String labels(Map<String, String> labels) {
    if (labels.isEmpty()) {
      return "(none)";
    }
    return new TreeMap<>(labels).entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
        .collect(Collectors.joining(","));
  }

  /** An instance as {@code id (k=v,...)}. */
  static String instance(ConfigInstance instance) {
    return instance.id() + " (" + labels(instance.labels()) + ")";
  }

  /**
   * A pending release for {@code --json}: {@code candidate, rule} (the rule as text) and the rule's
   * parts {@code labels, ids, percent}, so that scripts need not parse the text.
   */
  static Map<String, Object> json(GrayRelease release) {
    GrayRule rule = release.rule();
    return JsonOutput.object(
        "candidate", release.candidate(),
        "rule", rule(rule),
        "labels", new TreeMap<>(rule.labels()),
        "ids", new TreeSet<>(rule.ids()),
        "percent", rule.percent());
  }

  /** The line {@code config get} and {@code config list} print under a key with a release pending. */
  static String pending(GrayRelease release) {
    return "gray release pending for " + rule(release.rule()) + ": " + release.candidate();
  }
}
