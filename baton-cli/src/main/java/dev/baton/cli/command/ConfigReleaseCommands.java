package dev.baton.cli.command;

import dev.baton.cli.BatonCommand;
import dev.baton.config.ConfigCenter;
import dev.baton.config.ConfigEntry;
import dev.baton.config.ConfigFormat;
import dev.baton.config.ConfigInstance;
import dev.baton.config.ConfigOptions;
import dev.baton.config.ConfigRevision;
import dev.baton.config.GrayRule;
import dev.baton.config.ImportOptions;
import dev.baton.config.ImportPlan;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.Function;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code baton config history | rollback | export | import | gray}: a config center's history,
 * its way back, bulk copies of its keys, and gray releases.
 */
public final class ConfigReleaseCommands {
  /** How many revisions per key a CLI write keeps when the prefix keeps history. */
  public static final int DEFAULT_HISTORY = 20;
  /** The instance id the CLI takes part in gray releases as: it only publishes, promotes, aborts. */
  static final String CLI_INSTANCE = "baton-cli";

  private ConfigReleaseCommands() {}

  static <T> T with(CommandSpec spec, ConnectOptions connection, String prefix, ConfigOptions options,
      Function<ConfigCenter, T> action) {
    return ConfigWriteCommands.withConfig(spec, connection, prefix, options, action);
  }

  /** The arguments of every command on one key: the config center's prefix and the key. */
  abstract static class OnKey implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin ConnectOptions connection;

    @Parameters(index = "0", paramLabel = "<prefix>", description = "The config center's prefix, e.g. /config.")
    String prefix;

    @Parameters(index = "1", paramLabel = "<key>", description = "The key, e.g. db/url.")
    String key;
  }

  static ConfigFormat format(String name, CommandSpec spec) {
    try {
      return ConfigFormat.valueOf(name.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "--format must be properties, yaml or json, was '" + name + "'");
    }
  }

  @Command(name = "history", mixinStandardHelpOptions = true,
      description = "Prints the revisions of <key> its history keeps, newest first: version, operation, who"
          + " (host, pid, ZooKeeper identity), when, and the value written.")
  static final class History extends OnKey {
    @Mixin JsonOutput json;

    @Override
    public Integer call() {
      List<ConfigRevision> revisions = with(spec, connection, prefix,
          ConfigOptions.defaults().withHistory(DEFAULT_HISTORY), config -> config.history(key));
      PrintWriter out = spec.commandLine().getOut();
      if (json.enabled) {
        JsonOutput.print(out, JsonOutput.object("prefix", prefix, "key", key, "revisions",
            revisions.stream().map(ConfigReleaseCommands::revision).toList()));
        return BatonCommand.OK;
      }
      if (revisions.isEmpty()) {
        out.println("no history of " + key + " below " + prefix
            + " (written only by config centers without history?)");
      }
      for (ConfigRevision r : revisions) {
        out.println("version=" + r.version() + " " + r.operation() + " by " + r.host() + " pid " + r.pid()
            + r.authId().map(id -> " as " + id).orElse("") + " at " + r.time()
            + (r.isDelete() ? "" : " value=" + r.value().orElse("")));
      }
      out.flush();
      return BatonCommand.OK;
    }
  }

  private static Map<String, Object> revision(ConfigRevision r) {
    Map<String, Object> map = new LinkedHashMap<>();
    map.put("version", r.version());
    map.put("operation", r.operation());
    map.put("value", r.value().orElse(null));
    map.put("previousVersion", r.previousVersion());
    map.put("previousValue", r.previousValue().orElse(null));
    map.put("host", r.host());
    map.put("pid", r.pid());
    map.put("authId", r.authId().orElse(null));
    map.put("time", r.time().toString());
    return map;
  }

  @Command(name = "rollback", mixinStandardHelpOptions = true,
      description = "Writes back the value <key> had at <version> (from its history); itself a write with history.")
  static final class Rollback extends OnKey {
    @Parameters(index = "2", paramLabel = "<version>", description = "The version to go back to.")
    int version;

    @Override
    public Integer call() {
      ConfigEntry entry = with(spec, connection, prefix, ConfigOptions.defaults().withHistory(DEFAULT_HISTORY),
          config -> config.rollback(key, version));
      PrintWriter out = spec.commandLine().getOut();
      out.println(key + "=" + entry.value());
      out.println("version=" + entry.version());
      out.flush();
      return BatonCommand.OK;
    }
  }

  @Command(name = "export", mixinStandardHelpOptions = true,
      description = "Prints the keys below <prefix> (or below --keys) and their values as properties, YAML or JSON.")
  static final class Export implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin ConnectOptions connection;

    @Parameters(index = "0", paramLabel = "<prefix>", description = "The config center's prefix, e.g. /config.")
    String prefix;

    @Option(names = "--format", defaultValue = "properties", paramLabel = "FORMAT",
        description = "properties (default), yaml or json.")
    String format;

    @Option(names = "--keys", defaultValue = "", paramLabel = "KEY_PREFIX",
        description = "Only the keys at and below this key, e.g. db. Default: every key.")
    String keys;

    @Override
    public Integer call() {
      ConfigFormat chosen = format(format, spec);
      String text = with(spec, connection, prefix, ConfigOptions.defaults(), config -> config.export(keys, chosen));
      PrintWriter out = spec.commandLine().getOut();
      out.print(text);
      out.flush();
      return BatonCommand.OK;
    }
  }

  @Command(name = "import", mixinStandardHelpOptions = true,
      description = {"Writes the keys and values of <file> ('-' for standard input) below <prefix>: the keys whose"
          + " value differs, in as few transactions as fit ZooKeeper's packet limit, with history (operation"
          + " import); keys absent from the file are left alone unless --prune. Prints what changed, one line"
          + " a key: '+ key: new', '~ key: old -> new', '- key: old'.",
          "Layout, the same for every format: a name is the key's path ('/' separates levels, '.' is part of"
              + " a name), a nested YAML/JSON map adds a level (db: {url: x} is db/url), a list is the value as"
              + " JSON array text ([\"a\",\"b\"]). See docs/config.md."})
  static final class Import implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin ConnectOptions connection;

    @Parameters(index = "0", paramLabel = "<prefix>", description = "The config center's prefix, e.g. /config.")
    String prefix;

    @Parameters(index = "1", paramLabel = "<file>", description = "The file to read, or - for standard input.")
    String file;

    @Option(names = "--format", paramLabel = "FORMAT",
        description = "properties, yaml or json. Default: from the file's extension, else properties.")
    String format;

    @Option(names = "--dry-run",
        description = "Print what the import would add, change (old -> new) and, with --prune, remove, one line"
            + " a key, and write nothing.")
    boolean dryRun;

    @Option(names = "--prune",
        description = "Also delete the keys below <prefix> (or below --keys) that the file leaves out, in the same"
            + " transactions as the writes, with history. Refused for a file with no key unless --allow-empty.")
    boolean prune;

    @Option(names = "--allow-empty",
        description = "With --prune, let a file with no key delete every key (refused otherwise, so that an empty"
            + " or truncated file cannot wipe a config).")
    boolean allowEmpty;

    @Option(names = "--keys", paramLabel = "KEY_PREFIX",
        description = "Only the keys at and below this key, e.g. db, as 'config export --keys' writes them: a key"
            + " of the file outside it is refused, and --prune deletes only keys inside it.")
    String keys;

    @Override
    public Integer call() throws IOException {
      String name = format != null ? format
          : file.endsWith(".yaml") || file.endsWith(".yml") ? "yaml" : file.endsWith(".json") ? "json" : "properties";
      ConfigFormat chosen = format(name, spec);
      if (allowEmpty && !prune) {
        throw new ParameterException(spec.commandLine(), "--allow-empty goes with --prune");
      }
      String text;
      if (file.equals("-")) {
        text = new String(System.in.readAllBytes(), StandardCharsets.UTF_8);
      } else {
        Path path = Path.of(file);
        if (!Files.isRegularFile(path) || !Files.isReadable(path)) {
          throw new ParameterException(spec.commandLine(), "<file> '" + file + "' is not a readable file");
        }
        text = Files.readString(path, StandardCharsets.UTF_8);
      }
      ImportOptions options = ImportOptions.defaults().withKeyPrefix(keys == null ? "" : keys);
      if (prune) {
        options = options.withPrune();
      }
      if (allowEmpty) {
        options = options.withAllowEmpty();
      }
      ImportOptions chosenOptions = options;
      String source = file.equals("-") ? "standard input" : file;
      ImportPlan plan = with(spec, connection, prefix,
          dryRun ? ConfigOptions.defaults() : ConfigOptions.defaults().withHistory(DEFAULT_HISTORY), config -> {
            try {
              return dryRun ? config.planImport(text, chosen, chosenOptions)
                  : config.importFrom(text, chosen, chosenOptions);
            } catch (IllegalArgumentException e) {
              throw new IllegalArgumentException(source + ": " + e.getMessage(), e);
            }
          });
      PrintWriter out = spec.commandLine().getOut();
      plan.changes().forEach(out::println);
      if (dryRun) {
        out.println("dry run: " + plan.summary() + "; nothing written");
      } else {
        out.println(plan.size() + (plan.size() == 1 ? " key written: " : " keys written: ") + plan.summary());
      }
      out.flush();
      return BatonCommand.OK;
    }
  }

  /** {@code baton config gray}. */
  @Command(name = "gray", mixinStandardHelpOptions = true,
      description = "Gray (canary) releases: a candidate value seen first by the instances a rule matches.",
      subcommands = {Gray.Set.class, Gray.Promote.class, Gray.Abort.class, Gray.Reach.class})
  static final class Gray extends CommandGroup {
    static ConfigOptions options() {
      // Unannounced: the CLI writes gray releases, it is not one of the instances they reach.
      return ConfigOptions.defaults().withHistory(DEFAULT_HISTORY).withInstance(CLI_INSTANCE, Map.of()).unannounced();
    }

    /** For commands that only read the releases in progress: no history needed, still unannounced. */
    static ConfigOptions readOptions() {
      return ConfigOptions.defaults().withInstance(CLI_INSTANCE, Map.of()).unannounced();
    }

    /** Exactly one way to choose the instances. */
    static final class Rule {
      @Option(names = "--labels", paramLabel = "KEY=VALUE", split = ",",
          description = "Instances whose labels include all of these, e.g. zone=eu-1,version=2.")
      Map<String, String> labels;

      @Option(names = "--ids", paramLabel = "ID", split = ",", description = "These instance ids.")
      List<String> ids;

      @Option(names = "--percent", paramLabel = "P", description = "A stable P percent of instance ids (1-100).")
      Integer percent;

      GrayRule rule() {
        if (labels != null) {
          return GrayRule.forLabels(labels);
        }
        if (ids != null) {
          return GrayRule.forIds(ids.toArray(String[]::new));
        }
        return GrayRule.forPercent(percent);
      }
    }

    @Command(name = "set", mixinStandardHelpOptions = true,
        description = {"Publishes <value> for <key> to the instances the rule matches; the others keep the released value.",
            "The rule must match a live instance: an application's config center opened withInstance(id, labels),"
                + " or, for a test run from the command line alone, 'baton config watch <prefix> --instance ID"
                + " --labels K=V' in another terminal, which announces that instance while it watches."})
    static final class Set implements Callable<Integer> {
      @Spec CommandSpec spec;
      @Mixin ConnectOptions connection;

      @Parameters(index = "0", paramLabel = "<prefix>", description = "The config center's prefix, e.g. /config.")
      String prefix;

      @Parameters(index = "1", paramLabel = "<key>", description = "The key, e.g. feature/x.")
      String key;

      @Parameters(index = "2", paramLabel = "<value>", description = "The candidate value.")
      String value;

      @ArgGroup(exclusive = true, multiplicity = "1")
      Rule rule;

      @Override
      public Integer call() {
        GrayRule chosen;
        try {
          chosen = rule.rule();
        } catch (IllegalArgumentException e) {
          throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        with(spec, connection, prefix, options(), config -> {
          try {
            config.grayRelease(key, value, chosen);
          } catch (IllegalArgumentException e) {
            List<ConfigInstance> live = config.grayInstances();
            if (live.stream().noneMatch(instance -> instance.isReachedBy(chosen))) {
              // The library's message prints the rule and instances as records; say it as the options were typed.
              throw new ParameterException(spec.commandLine(), "the gray rule '" + GrayText.rule(chosen)
                  + "' for " + key + " matches no live instance below " + prefix + " (live: "
                  + (live.isEmpty() ? "none" : String.join(", ", live.stream().map(GrayText::instance).toList()))
                  + "); nothing was written. Announce one for a test run with: baton config watch " + prefix
                  + " --instance ID --labels K=V", e);
            }
            throw e;
          }
          return null;
        });
        spec.commandLine().getOut().println("gray release of " + key + " published: " + value + " for "
            + GrayText.rule(chosen));
        spec.commandLine().getOut().flush();
        return BatonCommand.OK;
      }
    }

    @Command(name = "promote", mixinStandardHelpOptions = true,
        description = "Makes the candidate of <key> the released value for every instance.")
    static final class Promote extends OnKey {
      @Override
      public Integer call() {
        ConfigEntry entry = with(spec, connection, prefix, options(), config -> {
          try {
            return config.promote(key);
          } catch (IllegalStateException e) {
            throw new CliException(e.getMessage(), e);
          }
        });
        spec.commandLine().getOut().println(key + "=" + entry.value() + " released, version=" + entry.version());
        spec.commandLine().getOut().flush();
        return BatonCommand.OK;
      }
    }

    @Command(name = "reach", mixinStandardHelpOptions = true,
        description = "Prints the live instances (id and labels) the gray release of <key> reaches now.")
    static final class Reach extends OnKey {
      @Mixin JsonOutput json;

      @Override
      public Integer call() {
        List<ConfigInstance> reached = with(spec, connection, prefix, options(), config -> {
          if (config.gray(key).isEmpty()) {
            throw new CliException("no gray release of " + key + " below " + prefix);
          }
          return config.grayReach(key);
        });
        PrintWriter out = spec.commandLine().getOut();
        if (json.enabled) {
          JsonOutput.print(out, JsonOutput.object("prefix", prefix, "key", key, "instances", reached.stream()
              .map(i -> JsonOutput.object("id", i.id(), "labels", i.labels())).toList()));
          return BatonCommand.OK;
        }
        if (reached.isEmpty()) {
          out.println("the gray release of " + key + " reaches no live instance now");
        }
        reached.forEach(i -> out.println(GrayText.instance(i)));
        out.flush();
        return BatonCommand.OK;
      }
    }

    @Command(name = "abort", mixinStandardHelpOptions = true,
        description = "Removes the candidate of <key>: every instance sees the released value again.")
    static final class Abort extends OnKey {
      @Override
      public Integer call() {
        boolean aborted = with(spec, connection, prefix, options(), config -> config.abort(key));
        if (!aborted) {
          throw new CliException("no gray release of " + key + " below " + prefix + " to abort");
        }
        return BatonCommand.OK;
      }
    }
  }
}
