package dev.baton.cli;

import dev.baton.Baton;
import dev.baton.config.ConfigCenter;
import dev.baton.config.ConfigEntry;
import java.io.PrintWriter;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code baton config}: what the keys of a config center hold, and writing them. */
@Command(name = "config", mixinStandardHelpOptions = true,
    description = "Inspect and write a config center: every key below a prefix, one key with its version,"
        + " setting and deleting keys, following changes.",
    subcommands = {ConfigCommand.ListKeys.class, ConfigCommand.Get.class, ConfigWriteCommands.Set.class,
        ConfigWriteCommands.Delete.class, ConfigWriteCommands.Watch.class, ConfigReleaseCommands.History.class,
        ConfigReleaseCommands.Rollback.class, ConfigReleaseCommands.Export.class, ConfigReleaseCommands.Import.class,
        ConfigReleaseCommands.Gray.class})
final class ConfigCommand extends CommandGroup {

  /** The config center on {@code prefix}; a bad prefix or key is a usage error naming it. */
  static ConfigCenter open(Baton baton, String prefix, CommandSpec spec) {
    try {
      return ConfigCenter.open(baton, prefix);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "<prefix>: " + e.getMessage());
    }
  }

  /** {@code baton config list}. */
  @Command(name = "list", mixinStandardHelpOptions = true,
      description = "Prints every key below <prefix> as key=value, in key order.")
  static final class ListKeys implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin ConnectOptions connection;
    @Mixin JsonOutput json;

    @Parameters(index = "0", paramLabel = "<prefix>", description = "The config center's prefix, e.g. /config.")
    String prefix;

    @Override
    public Integer call() {
      LockCommand.checkPath(prefix, "<prefix>", "config prefix", spec);
      try (Baton baton = connection.open(spec); ConfigCenter config = open(baton, prefix, spec)) {
        Map<String, String> keys = new java.util.TreeMap<>(config.snapshot());
        PrintWriter out = spec.commandLine().getOut();
        if (json.enabled) {
          JsonOutput.print(out, JsonOutput.object("prefix", prefix, "keys", keys));
          return BatonCommand.OK;
        }
        if (keys.isEmpty()) {
          out.println("no keys below " + prefix);
        }
        keys.forEach((key, value) -> out.println(key + "=" + value));
        out.flush();
        return BatonCommand.OK;
      }
    }
  }

  /** {@code baton config get}. */
  @Command(name = "get", mixinStandardHelpOptions = true,
      description = "Prints the value of <key> below <prefix>, and its version on a second line.")
  static final class Get implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin ConnectOptions connection;
    @Mixin JsonOutput json;

    @Parameters(index = "0", paramLabel = "<prefix>", description = "The config center's prefix, e.g. /config.")
    String prefix;

    @Parameters(index = "1", paramLabel = "<key>", description = "The key, relative to the prefix, e.g. db/url.")
    String key;

    @Override
    public Integer call() {
      LockCommand.checkPath(prefix, "<prefix>", "config prefix", spec);
      try (Baton baton = connection.open(spec); ConfigCenter config = open(baton, prefix, spec)) {
        Optional<ConfigEntry> entry;
        try {
          entry = config.entry(key);
        } catch (IllegalArgumentException e) {
          throw new ParameterException(spec.commandLine(), "<key>: " + e.getMessage());
        }
        if (entry.isEmpty()) {
          throw new CliException("no key " + key + " below " + prefix);
        }
        PrintWriter out = spec.commandLine().getOut();
        if (json.enabled) {
          JsonOutput.print(out, JsonOutput.object("prefix", prefix, "key", key,
              "value", entry.get().value(), "version", entry.get().version()));
          return BatonCommand.OK;
        }
        out.println(entry.get().value());
        out.println("version=" + entry.get().version());
        out.flush();
        return BatonCommand.OK;
      }
    }
  }
}
