package dev.baton.cli;

import dev.baton.cli.command.CacheCommand;
import dev.baton.cli.command.CliException;
import dev.baton.cli.command.ConfigCommand;
import dev.baton.cli.command.ElectionCommand;
import dev.baton.cli.command.LeaderCommand;
import dev.baton.cli.command.LibraryLog;
import dev.baton.cli.command.LockCommand;
import dev.baton.cli.command.RecipeCommands;
import dev.baton.cli.command.ServerCommand;
import dev.baton.cli.command.ServiceCommand;
import dev.baton.cli.command.TreeCommand;
import dev.baton.cli.console.ConsoleCommand;
import dev.baton.cli.demo.DemoCommand;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.util.Properties;
import java.util.concurrent.Callable;
import picocli.AutoComplete;
import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.Spec;
import picocli.CommandLine.UnmatchedArgumentException;
import picocli.CommandLine;

/**
 * The {@code baton} command line: an embedded ZooKeeper server, the flash-sale demo, and
 * inspection of locks. Exit codes: 0 success, 1 failure, 2 bad usage (or a child command's own
 * code for {@code lock hold}).
 */
@Command(
    name = "baton",
    mixinStandardHelpOptions = true,
    versionProvider = BatonCommand.Version.class,
    description = "Distributed locks on Apache ZooKeeper and Redis: a demo, an embedded server,"
        + " inspection of locks, elections, config and services.",
    subcommands = {DemoCommand.class, ServerCommand.class, LockCommand.class, LeaderCommand.class,
        ConfigCommand.class, ServiceCommand.class, RecipeCommands.RwLock.class,
        RecipeCommands.SemaphoreCommand.class, ElectionCommand.class, RecipeCommands.Queue.class,
        RecipeCommands.BarrierCommand.class, TreeCommand.class, CacheCommand.class, ConsoleCommand.class,
        AutoComplete.GenerateCompletion.class},
    footer = {"", "Start with: baton demo"})
public final class BatonCommand implements Callable<Integer> {
  public static final int OK = 0;
  public static final int FAILURE = 1;
  public static final int USAGE = 2;

  @Spec CommandSpec spec;

  @Option(names = "--verbose", scope = CommandLine.ScopeType.INHERIT,
      description = "Print the stack trace of an error, and the libraries' log lines on stderr (without it"
          + " they go to ~/.baton/baton.log, never into the output).")
  boolean verbose;

  /** Runs the command line and exits the JVM with its exit code. */
  public static void main(String[] args) {
    LibraryLog.configure(isVerbose(args));
    System.exit(newCommandLine().execute(args));
  }

  /**
   * A fully configured command line; tests call {@code execute} on it with their own writers
   * ({@code setOut}, {@code setErr}).
   */
  public static CommandLine newCommandLine() {
    return newCommandLine(CommandLine.defaultFactory());
  }

  /** As {@link #newCommandLine()}, with {@code factory} making the command objects. */
  public static CommandLine newCommandLine(CommandLine.IFactory factory) {
    CommandLine commandLine = new CommandLine(new BatonCommand(), factory);
    // Listed in baton --help (picocli hides it by default): source <(baton generate-completion)
    commandLine.getSubcommands().get("generate-completion").getCommandSpec().usageMessage().hidden(false);
    // Help flows to the terminal's width, like a man page, instead of breaking at 80 columns.
    commandLine.setUsageHelpAutoWidth(true);
    commandLine.setExecutionExceptionHandler(BatonCommand::handleFailure);
    commandLine.setParameterExceptionHandler(BatonCommand::handleBadUsage);
    return commandLine;
  }

  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getErr());
    return USAGE;
  }

  /** One line naming what was wrong, and where to read more; no usage dump to scroll past. */
  private static int handleBadUsage(ParameterException e, String[] args) {
    CommandLine commandLine = e.getCommandLine();
    PrintWriter err = commandLine.getErr();
    String name = commandLine.getCommandSpec().qualifiedName();
    err.println(name + ": " + unknownCommand(e).orElse(e.getMessage()) + " (see '" + name + " --help')");
    UnmatchedArgumentException.printSuggestions(e, err);
    if (isVerbose(args)) {
      e.printStackTrace(err);
    }
    err.flush();
    return USAGE;
  }

  /**
   * Picocli reports a mistyped command as unmatched arguments; say what it is, and list the
   * commands there are.
   */
  private static java.util.Optional<String> unknownCommand(ParameterException e) {
    if (!(e instanceof UnmatchedArgumentException unmatched) || unmatched.getUnmatched().isEmpty()) {
      return java.util.Optional.empty();
    }
    java.util.Map<String, CommandLine> commands = e.getCommandLine().getSubcommands();
    String first = unmatched.getUnmatched().get(0);
    if (commands.isEmpty() || first.startsWith("-")) {
      return java.util.Optional.empty();
    }
    return java.util.Optional.of("unknown command '" + first + "'; the commands are "
        + String.join(", ", commands.keySet()));
  }

  private static int handleFailure(Exception e, CommandLine commandLine, ParseResult parseResult) {
    PrintWriter err = commandLine.getErr();
    boolean verbose = isVerbose(parseResult.originalArgs().toArray(String[]::new));
    // An expected failure explains itself; anything else may need the trace to be understood.
    String hint = verbose || e instanceof CliException ? "" : " (--verbose shows the stack trace)";
    err.println(commandLine.getCommandSpec().qualifiedName() + ": " + describe(e) + hint);
    if (verbose) {
      e.printStackTrace(err);
    }
    err.flush();
    return FAILURE;
  }

  /** The message, or the exception's type when it has none (a bare NullPointerException). */
  public static String describe(Throwable e) {
    String message = e.getMessage();
    return message == null || message.isBlank() ? e.getClass().getSimpleName() : message;
  }

  // The parse may have failed before the option was bound to a field, so look at the raw words.
  static boolean isVerbose(String[] args) {
    for (String arg : args) {
      if (arg.equals("--")) {
        return false;
      }
      if (arg.equals("--verbose")) {
        return true;
      }
    }
    return false;
  }

  /** Reads the version Maven wrote into the jar's resources. */
  static final class Version implements IVersionProvider {
    @Override
    public String[] getVersion() {
      Properties properties = new Properties();
      try (InputStream in = BatonCommand.class.getResourceAsStream("version.properties")) {
        if (in != null) {
          properties.load(in);
        }
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot read baton's version.properties", e);
      }
      return new String[] {
          "baton " + properties.getProperty("version", "unknown"),
          "ZooKeeper client " + properties.getProperty("zookeeper", "unknown")
              + ", Java " + System.getProperty("java.version")
      };
    }
  }
}
