package dev.baton.cli.command;

import dev.baton.Baton;
import dev.baton.ZkPaths;
import dev.baton.cli.BatonCommand;
import dev.baton.lock.LockOwner;
import dev.baton.lock.Mutex;
import java.io.PrintWriter;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.Function;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code baton lock}: who holds a mutex, who waits for it, and holding it around a command. */
@Command(
    name = "lock",
    mixinStandardHelpOptions = true,
    description = "Inspect a mutex, or hold it while a command runs.",
    subcommands = {LockCommand.Holder.class, LockCommand.Waiters.class, LockHoldCommand.class,
        LockCommand.Revoke.class})
public final class LockCommand extends CommandGroup {

  /** One line per owner: {@code key=value} pairs, easy to read and to grep. */
  static String describe(LockOwner owner) {
    return "node=" + owner.node()
        + " token=" + owner.fencingToken()
        + " host=" + quoted(owner.host())
        + " pid=" + owner.pid()
        + " thread=" + quoted(owner.thread())
        // A Redis holder has no session: its key lives by a TTL.
        + (owner.sessionId() == 0 ? "" : " session=0x" + Long.toHexString(owner.sessionId()))
        + " queued-at=" + owner.queuedAt();
  }

  private static String quoted(String value) {
    return value.isEmpty() || value.chars().anyMatch(c -> Character.isWhitespace(c) || c == '"')
        ? '"' + value.replace("\"", "\\\"") + '"'
        : value;
  }

  /**
   * Refuses a path no mutex can have, as a usage error naming it, before anything is sent (a bad
   * path must not wait out a connection timeout first).
   */
  public static void checkPath(String path, CommandSpec spec) {
    checkPath(path, "<path>", "mutex path", spec);
  }

  /** As {@link #checkPath(String, CommandSpec)}, for any recipe's path parameter. */
  public static void checkPath(String path, String parameter, String what, CommandSpec spec) {
    try {
      ZkPaths.validateRecipePath(path, what);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), parameter + ": " + e.getMessage());
    }
  }

  /** The mutex at {@code path}; a bad path is a usage error naming it. */
  static Mutex mutex(Baton baton, String path, CommandSpec spec) {
    try {
      return baton.mutex(path);
    } catch (IllegalArgumentException e) {
      throw new ParameterException(spec.commandLine(), "<path>: " + e.getMessage());
    }
  }

  /** {@code baton lock holder}. */
  @Command(name = "holder", mixinStandardHelpOptions = true,
      description = "Prints who holds the mutex at <path>: node, fencing token, host, pid, thread, session, queued-at.")
  static final class Holder implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin StoreOptions store;
    @Mixin JsonOutput json;

    @Parameters(index = "0", paramLabel = "<path>",
        description = "The mutex's path, e.g. /locks/sku-42; with --redis or --jdbc, the lock's name.")
    String path;

    @Override
    public Integer call() {
      PrintWriter out = spec.commandLine().getOut();
      Read<Optional<LockOwner>> holder = read(spec, store, path, Mutex::holder);
      if (json.enabled) {
        JsonOutput.print(out, JsonOutput.object("path", path, "backend", holder.backend(),
            "holder", holder.value().map(JsonOutput::owner).orElse(null)));
        return BatonCommand.OK;
      }
      out.println(holder.value().map(LockCommand::describe).orElse(path + " is free: nobody holds it"));
      out.flush();
      return BatonCommand.OK;
    }
  }

  /** {@code baton lock revoke}. */
  @Command(name = "revoke", mixinStandardHelpOptions = true,
      description = "Asks the holder of the mutex at <path> to let go (cooperative, as Curator's Revoker):"
          + " a holder that made its lease revocable is told; nothing is taken from it by force.")
  static final class Revoke implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin ConnectOptions connection;

    @Parameters(index = "0", paramLabel = "<path>", description = "The mutex's path, e.g. /locks/sku-42.")
    String path;

    @Override
    public Integer call() {
      checkPath(path, spec);
      try (Baton baton = connection.open(spec)) {
        Mutex mutex = mutex(baton, path, spec);
        RecipeCheck.expect(baton, path, connection.connectTimeout, "mutex", NodeKind.MUTEX);
        Optional<LockOwner> holder = mutex.holder();
        boolean asked = baton.requestRevocation(mutex);
        PrintWriter out = spec.commandLine().getOut();
        out.println(asked
            ? "asked the holder of " + path + " to let go: " + holder.map(LockCommand::describe).orElse("(gone meanwhile)")
            : path + " is free: nobody to ask");
        out.flush();
        return BatonCommand.OK;
      }
    }
  }

  /** {@code baton lock waiters}. */
  @Command(name = "waiters", mixinStandardHelpOptions = true,
      description = "Prints who waits for the mutex at <path>, next in line first, one line each.")
  static final class Waiters implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin StoreOptions store;
    @Mixin JsonOutput json;

    @Parameters(index = "0", paramLabel = "<path>",
        description = "The mutex's path, e.g. /locks/sku-42; with --redis or --jdbc, the lock's name.")
    String path;

    @Override
    public Integer call() {
      if (store.kind(spec) == StoreOptions.Kind.JDBC) {
        // JdbcMutex.waiters() lists this client's waiters only: a new client would always say "nobody".
        throw new CliException("A SQL lock table keeps no queue: who waits for " + path + " in other"
            + " processes cannot be read ('baton lock holder' says who holds it)");
      }
      Read<List<LockOwner>> read = read(spec, store, path, Mutex::waiters);
      List<LockOwner> waiters = read.value();
      PrintWriter out = spec.commandLine().getOut();
      if (json.enabled) {
        JsonOutput.print(out, JsonOutput.object("path", path, "backend", read.backend(),
            "waiters", waiters.stream().map(JsonOutput::owner).toList()));
        return BatonCommand.OK;
      }
      if (waiters.isEmpty()) {
        out.println("nobody waits for " + path);
      }
      waiters.forEach(w -> out.println(describe(w)));
      out.flush();
      return BatonCommand.OK;
    }
  }

  /** What was read, and on which backend. */
  record Read<T>(String backend, T value) {}

  /**
   * Reads the mutex named {@code path} on the store the options chose; a name or path the backend
   * cannot have is a usage error naming it (on ZooKeeper before anything is sent).
   */
  private static <T> Read<T> read(CommandSpec spec, StoreOptions options, String path, Function<Mutex, T> reading) {
    try (Store store = options.open(spec, path, "mutex path", false)) {
      Mutex mutex = store.mutex(path);
      store.expect(path, "mutex", NodeKind.MUTEX);
      return new Read<>(store.backend(), reading.apply(mutex));
    }
  }
}
