package dev.baton.cli.command;

import dev.baton.Baton;
import dev.baton.cli.BatonCommand;
import dev.baton.config.ConfigCenter;
import dev.baton.config.ConfigEntry;
import dev.baton.config.ConfigOptions;
import dev.baton.config.GrayRelease;
import java.io.PrintWriter;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
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
public final class ConfigCommand extends CommandGroup {

  /** The config center on {@code prefix}; a bad prefix or key is a usage error naming it. */
  static ConfigCenter open(Baton baton, String prefix, CommandSpec spec) {
    return open(baton, prefix, ConfigOptions.defaults(), spec);
  }

  /** As above, opened with {@code options}. */
  static ConfigCenter open(Baton baton, String prefix, ConfigOptions options, CommandSpec spec) {
    try {
      return ConfigCenter.open(baton, prefix, options);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "<prefix>: " + e.getMessage());
    }
  }

  /**
   * A second view of {@code prefix} that only reads the gray releases in progress. The released
   * values come from a plain config center beside it: one taking part in gray releases shows a
   * candidate instead of the released value wherever the rule matches its own id (a percentage
   * can), and nothing else gives the released value back.
   */
  static ConfigCenter openGray(Baton baton, String prefix, CommandSpec spec) {
    return open(baton, prefix, ConfigReleaseCommands.Gray.readOptions(), spec);
  }

  /** {@code baton config list}. */
  @Command(name = "list", mixinStandardHelpOptions = true,
      description = "Prints every key below <prefix> as key=value, in key order, with the candidate of a gray"
          + " release in progress on an indented line below its key.")
  static final class ListKeys implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin ConnectOptions connection;
    @Mixin JsonOutput json;

    @Parameters(index = "0", paramLabel = "<prefix>", description = "The config center's prefix, e.g. /config.")
    String prefix;

    @Override
    public Integer call() {
      LockCommand.checkPath(prefix, "<prefix>", "config prefix", spec);
      try (Baton baton = connection.open(spec); ConfigCenter config = open(baton, prefix, spec);
           ConfigCenter gray = openGray(baton, prefix, spec)) {
        Map<String, String> keys = new TreeMap<>(config.snapshot());
        Map<String, GrayRelease> pending = new TreeMap<>();
        for (String key : keys.keySet()) {
          gray.gray(key).ifPresent(release -> pending.put(key, release));
        }
        PrintWriter out = spec.commandLine().getOut();
        if (json.enabled) {
          Map<String, Object> grayJson = new TreeMap<>();
          pending.forEach((key, release) -> grayJson.put(key, GrayText.json(release)));
          JsonOutput.print(out, JsonOutput.object("prefix", prefix, "keys", keys, "gray", grayJson));
          return BatonCommand.OK;
        }
        if (keys.isEmpty()) {
          out.println("no keys below " + prefix);
        }
        keys.forEach((key, value) -> {
          out.println(key + "=" + value);
          if (pending.containsKey(key)) {
            out.println("  " + GrayText.pending(pending.get(key)));
          }
        });
        out.flush();
        return BatonCommand.OK;
      }
    }
  }

  /** {@code baton config get}. */
  @Command(name = "get", mixinStandardHelpOptions = true,
      description = "Prints the released value of <key> below <prefix>, its version on a second line, and the"
          + " candidate of a gray release in progress (with its rule) on a third.")
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
      try (Baton baton = connection.open(spec); ConfigCenter config = open(baton, prefix, spec);
           ConfigCenter gray = openGray(baton, prefix, spec)) {
        Optional<ConfigEntry> entry;
        try {
          entry = config.entry(key);
        } catch (IllegalArgumentException e) {
          throw new ParameterException(spec.commandLine(), "<key>: " + e.getMessage());
        }
        if (entry.isEmpty()) {
          throw new CliException("no key " + key + " below " + prefix);
        }
        Optional<GrayRelease> pending = gray.gray(key);
        PrintWriter out = spec.commandLine().getOut();
        if (json.enabled) {
          JsonOutput.print(out, JsonOutput.object("prefix", prefix, "key", key,
              "value", entry.get().value(), "version", entry.get().version(),
              "gray", pending.map(GrayText::json).orElse(null)));
          return BatonCommand.OK;
        }
        out.println(entry.get().value());
        out.println("version=" + entry.get().version());
        pending.ifPresent(release -> out.println(GrayText.pending(release)));
        out.flush();
        return BatonCommand.OK;
      }
    }
  }
}
