package dev.baton.cli.command;

import dev.baton.Baton;
import dev.baton.cli.BatonCommand;
import dev.baton.config.ConfigCenter;
import dev.baton.config.ConfigEntry;
import dev.baton.config.ConfigOptions;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code baton config set | delete | watch}: writing a config center's keys, and following them. */
public final class ConfigWriteCommands {
  private ConfigWriteCommands() {}

  /** Whether a write keeps its revision in the key's history (the default) or not. */
  static final class HistoryOption {
    @Option(names = "--no-history",
        description = "Write without recording a revision in the key's history (for identities that may not"
            + " write <prefix>.history).")
    boolean off;

    dev.baton.config.ConfigOptions options() {
      return off ? dev.baton.config.ConfigOptions.defaults()
          : dev.baton.config.ConfigOptions.defaults().withHistory(ConfigReleaseCommands.DEFAULT_HISTORY);
    }
  }

  /** Runs {@code action} on the config center at {@code prefix}; bad prefixes and keys are usage errors. */
  static <T> T withConfig(CommandSpec spec, ConnectOptions connection, String prefix, HistoryOption history,
      java.util.function.Function<ConfigCenter, T> action) {
    return withConfig(spec, connection, prefix, history.options(), action);
  }

  /** As above, with the config center opened with {@code options}; the library's messages name the key. */
  static <T> T withConfig(CommandSpec spec, ConnectOptions connection, String prefix,
      dev.baton.config.ConfigOptions options, java.util.function.Function<ConfigCenter, T> action) {
    LockCommand.checkPath(prefix, "<prefix>", "config prefix", spec);
    ConfigCenter opened;
    try (Baton baton = connection.open(spec)) {
      try {
        opened = ConfigCenter.open(baton, prefix, options);
      } catch (IllegalArgumentException e) {
        throw new ParameterException(spec.commandLine(), "<prefix>: " + e.getMessage());
      }
      try (ConfigCenter config = opened) {
        try {
          return action.apply(config);
        } catch (IllegalArgumentException e) {
          throw new ParameterException(spec.commandLine(), e.getMessage());
        }
      }
    }
  }

  @Command(name = "set", mixinStandardHelpOptions = true,
      description = "Sets <key> below <prefix> to <value> (creating it if needed) and prints its new version."
          + " With --if-version, only if the key is still at that version (compare-and-set).")
  static final class Set implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin ConnectOptions connection;

    @Parameters(index = "0", paramLabel = "<prefix>", description = "The config center's prefix, e.g. /config.")
    String prefix;

    @Parameters(index = "1", paramLabel = "<key>", description = "The key, relative to the prefix, e.g. db/url.")
    String key;

    @Parameters(index = "2", paramLabel = "<value>", description = "The new value, as text.")
    String value;

    @Mixin HistoryOption history;

    @Option(names = "--if-version", paramLabel = "N",
        description = "Write only if the key's version is still N; exit 1 naming the version found otherwise.")
    Integer ifVersion;

    @Override
    public Integer call() {
      PrintWriter out = spec.commandLine().getOut();
      String result = withConfig(spec, connection, prefix, history, config -> {
        if (ifVersion != null) {
          if (!config.compareAndSet(key, ifVersion, value)) {
            throw new CliException("not written: " + key + " is at version "
                + config.entry(key).map(e -> Integer.toString(e.version())).orElse("(missing)")
                + ", not " + ifVersion);
          }
          return "version=" + config.entry(key).map(ConfigEntry::version).orElse(ifVersion + 1);
        }
        return "version=" + config.set(key, value).version();
      });
      out.println(result);
      out.flush();
      return BatonCommand.OK;
    }
  }

  @Command(name = "delete", mixinStandardHelpOptions = true, description = "Deletes <key> below <prefix>.")
  static final class Delete implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin ConnectOptions connection;

    @Parameters(index = "0", paramLabel = "<prefix>", description = "The config center's prefix, e.g. /config.")
    String prefix;

    @Parameters(index = "1", paramLabel = "<key>", description = "The key, relative to the prefix, e.g. db/url.")
    String key;

    @Mixin HistoryOption history;

    @Override
    public Integer call() {
      boolean deleted = withConfig(spec, connection, prefix, history, config -> config.delete(key));
      if (!deleted) {
        throw new CliException("no key " + key + " below " + prefix);
      }
      return BatonCommand.OK;
    }
  }

  @Command(name = "watch", mixinStandardHelpOptions = true,
      description = "Prints every change below <prefix> as it happens, one line each (key, old value, new value),"
          + " until Ctrl-C. With --json, each line is one JSON object: {\"key\", \"old\", \"new\"}, null for none."
          + " With --instance, watches as that config center instance, announced while it watches: a live"
          + " instance gray rules can match (for a test run without the application), and the changes are"
          + " those it sees, gray candidates included.")
  static final class Watch implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin ConnectOptions connection;
    @Mixin JsonOutput json;

    @Parameters(index = "0", paramLabel = "<prefix>", description = "The config center's prefix, e.g. /config.")
    String prefix;

    @ArgGroup(exclusive = false)
    GrayInstance instance;

    /** The instance a watch announces itself as, for gray releases. */
    static final class GrayInstance {
      @Option(names = "--instance", required = true, paramLabel = "ID",
          description = "Watch as the config center instance ID, announced for gray releases while watching.")
      String id;

      @Option(names = "--labels", paramLabel = "KEY=VALUE", split = ",",
          description = "The announced instance's labels, e.g. zone=eu-1,version=2 (with --instance).")
      Map<String, String> labels = new LinkedHashMap<>();
    }

    /** Released by Ctrl-C; tests release it to stop watching. */
    final CountDownLatch stop = new CountDownLatch(1);

    @Override
    public Integer call() throws InterruptedException {
      LockCommand.checkPath(prefix, "<prefix>", "config prefix", spec);
      ConfigOptions options = ConfigOptions.defaults();
      if (instance != null) {
        if (instance.labels.keySet().stream().anyMatch(String::isBlank)) {
          throw new ParameterException(spec.commandLine(), "--labels: label names must not be blank, were "
              + instance.labels.keySet());
        }
        try {
          options = options.withInstance(instance.id, instance.labels);
        } catch (IllegalArgumentException e) {
          throw new ParameterException(spec.commandLine(), "--instance/--labels: " + e.getMessage());
        }
      }
      PrintWriter out = spec.commandLine().getOut();
      try (Baton baton = connection.open(spec);
           ConfigCenter config = ConfigCommand.open(baton, prefix, options, spec)) {
        if (instance != null) {
          // On stderr, so that standard output stays the changes alone (one JSON object a line with --json).
          spec.commandLine().getErr().println("announced as instance " + instance.id + " ("
              + GrayText.labels(instance.labels) + ") for gray releases below " + prefix + " while watching");
          spec.commandLine().getErr().flush();
        }
        config.addListener((key, oldValue, newValue) -> {
          synchronized (out) {
            if (json.enabled) {
              JsonOutput.printLine(out, JsonOutput.object("key", key, "old", oldValue, "new", newValue));
            } else {
              out.println(key + ": " + (oldValue == null ? "(none)" : oldValue) + " -> "
                  + (newValue == null ? "(deleted)" : newValue));
              out.flush();
            }
          }
        });
        UntilStopped.await(stop, "baton-config-watch");
      }
      return BatonCommand.OK;
    }
  }
}
