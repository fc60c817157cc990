package dev.baton.cli.command;

import dev.baton.Baton;
import dev.baton.Codecs;
import dev.baton.barrier.Barrier;
import dev.baton.cli.BatonCommand;
import dev.baton.lock.Lease;
import dev.baton.lock.LockOwner;
import dev.baton.lock.Mutex;
import dev.baton.lock.ReadWriteLock;
import dev.baton.lock.Semaphore;
import dev.baton.queue.DistributedQueue;
import dev.baton.queue.QueueItem;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * The recipe-aware commands beside {@code lock}: read-write locks, semaphores, queues and
 * barriers, each a thin user of Baton's public API.
 */
public final class RecipeCommands {
  private RecipeCommands() {}

  /** Checks {@code path}, connects, runs {@code action} and says OK: the shape of every command that only writes. */
  static int write(CommandSpec spec, ConnectOptions connection, String path, String what,
      java.util.function.Consumer<Baton> action) {
    LockCommand.checkPath(path, "<path>", what, spec);
    try (Baton baton = connection.open(spec)) {
      action.accept(baton);
      return BatonCommand.OK;
    }
  }

  /** Prints owners one line each, or as JSON, or {@code none} when there are none. */
  static void printOwners(PrintWriter out, JsonOutput json, String path, String backend, String field,
      List<LockOwner> owners, String none) {
    if (json.enabled) {
      JsonOutput.print(out, JsonOutput.object("path", path, "backend", backend, field,
          owners.stream().map(JsonOutput::owner).toList()));
      return;
    }
    if (owners.isEmpty()) {
      out.println(none);
    }
    owners.forEach(o -> out.println(LockCommand.describe(o)));
    out.flush();
  }

  /** {@code baton rwlock}. */
  @Command(name = "rwlock", mixinStandardHelpOptions = true,
      description = "Inspect a read-write lock (Baton's or Curator's InterProcessReadWriteLock; on Redis, Baton's"
          + " or Redisson's RReadWriteLock), or hold it while a command runs.",
      subcommands = {RwLock.Holders.class, RwLock.Waiters.class, RwLock.Hold.class})
  public static final class RwLock extends CommandGroup {

    /** What both listings share: the path, the check that it is a read-write lock, the printing. */
    abstract static class Listing implements Callable<Integer> {
      @Spec CommandSpec spec;
      @Mixin StoreOptions store;
      @Mixin JsonOutput json;

      @Parameters(index = "0", paramLabel = "<path>",
          description = "The lock's path, e.g. /locks/catalog; with --redis or --jdbc, its name.")
      String path;

      private final String field;
      private final java.util.function.Function<ReadWriteLock, List<LockOwner>> reading;
      private final java.util.function.UnaryOperator<String> none;

      /**
       * Lists what {@code reading} returns under the JSON field {@code field}; {@code none} says, of
       * the path, that the list is empty.
       */
      Listing(String field, java.util.function.Function<ReadWriteLock, List<LockOwner>> reading,
          java.util.function.UnaryOperator<String> none) {
        this.field = field;
        this.reading = reading;
        this.none = none;
      }

      @Override
      public Integer call() {
        try (Store opened = store.open(spec, path, "read-write lock path", false)) {
          ReadWriteLock lock = opened.readWriteLock(path);
          opened.expect(path, "read-write lock", NodeKind.READ_WRITE_LOCK);
          printOwners(spec.commandLine().getOut(), json, path, opened.backend(), field, reading.apply(lock),
              none.apply(path));
          return BatonCommand.OK;
        }
      }
    }

    @Command(name = "holders", mixinStandardHelpOptions = true,
        description = "Prints who holds the read-write lock at <path>: the writer, or every reader, one line each.")
    static final class Holders extends Listing {
      Holders() {
        super("holders", ReadWriteLock::holders, path -> path + " is free: nobody holds it");
      }
    }

    @Command(name = "waiters", mixinStandardHelpOptions = true,
        description = "Prints who waits for the read-write lock at <path>, next in line first.")
    static final class Waiters extends Listing {
      Waiters() {
        super("waiters", ReadWriteLock::waiters, path -> "nobody waits for " + path);
      }
    }

    @Command(name = "hold", mixinStandardHelpOptions = true,
        description = {
            "Takes the read lock (--read, shared) or the write lock (--write, exclusive) of <path>, runs"
                + " <command> with the fencing token in BATON_FENCING_TOKEN (and the path in BATON_LOCK_PATH),"
                + " and releases the lock when the command ends. As 'baton lock hold': the command runs in a"
                + " process group of its own, stopped when the lock is lost or baton dies. Put -- before the command:",
            "  baton rwlock hold catalog --write --redis redis://cache:6379 -- ./reindex.sh",
            "Exit codes as for 'baton lock hold': the command's own; 124 not obtained within --timeout;"
                + " 125 lost while the command ran; 126 cannot run; 127 not found; 1 baton failed; 2 bad usage."
        })
    static final class Hold implements Callable<Integer> {
      @Spec CommandSpec spec;
      @Mixin StoreOptions store;

      @picocli.CommandLine.ArgGroup(exclusive = true, multiplicity = "1")
      Mode mode;

      static final class Mode {
        @Option(names = "--read", required = true, description = "Take the read lock, shared with other readers.")
        boolean read;

        @Option(names = "--write", required = true, description = "Take the write lock, alone.")
        boolean write;
      }

      @Option(names = "--timeout", paramLabel = "DURATION", converter = DurationConverter.class,
          description = "Give up (exit 124) if the lock is not ours within this time; 0s tries once. Default: wait.")
      Duration timeout;

      @Option(names = "--grace", paramLabel = "DURATION", converter = DurationConverter.class, defaultValue = "5s",
          description = "After the lock is lost: how long the command's group has between TERM and KILL."
              + " Default: ${DEFAULT-VALUE}.")
      Duration grace;

      @Parameters(index = "0", paramLabel = "<path>",
          description = "The lock's path, e.g. /locks/catalog; with --redis or --jdbc, its name.")
      String path;

      @Parameters(index = "1..*", arity = "1..*", paramLabel = "<command>", description = "The command and its arguments, after --.")
      List<String> command;

      @Override
      public Integer call() throws InterruptedException {
        String side = mode.write ? "write" : "read";
        try (Store opened = store.open(spec, path, "read-write lock path", true)) {
          ReadWriteLock lock = opened.readWriteLock(path);
          opened.expect(path, "read-write lock", NodeKind.READ_WRITE_LOCK);
          Mutex mutex = mode.write ? lock.writeLock() : lock.readLock();
          return holdAndRun("baton rwlock hold", spec, path, "the " + side + " lock of " + path,
              () -> timeout == null ? Optional.of(mutex.acquire()) : mutex.tryAcquire(timeout), timeout,
              lock::holders, command, grace);
        }
      }
    }
  }

  /** {@code baton semaphore holders|hold}. */
  @Command(name = "semaphore", mixinStandardHelpOptions = true,
      description = "Inspect a counting semaphore (Baton's or Curator's InterProcessSemaphoreV2; on Redis, Baton's"
          + " or Redisson's RPermitExpirableSemaphore), or hold permits while a command runs.",
      subcommands = {SemaphoreHolders.class, SemaphoreHold.class})
  public static final class SemaphoreCommand extends CommandGroup {
  }

  @Command(name = "holders", mixinStandardHelpOptions = true,
      description = "Prints who holds a permit of the semaphore at <path>, one line per permit.")
  static final class SemaphoreHolders implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin StoreOptions store;
    @Mixin JsonOutput json;

    @Parameters(index = "0", paramLabel = "<path>",
        description = "The semaphore's path, e.g. /semaphores/db; with --redis or --jdbc, its name.")
    String path;

    // As with Curator's semaphore, the number of permits is the users' setting, not kept on the
    // server, and it decides which lease nodes hold a permit and which wait.
    @Option(names = "--permits", required = true, paramLabel = "N",
        description = "The semaphore's number of permits, as its users create it.")
    int permits;

    @Override
    public Integer call() {
      checkPermits(permits, spec);
      try (Store opened = store.open(spec, path, "semaphore path", false)) {
        Semaphore semaphore = opened.semaphore(path, permits);
        opened.expect(path, "semaphore", NodeKind.SEMAPHORE);
        printOwners(spec.commandLine().getOut(), json, path, opened.backend(), "holders", semaphore.holders(),
            "nobody holds a permit of " + path);
        return BatonCommand.OK;
      }
    }
  }

  static void checkPermits(int permits, CommandSpec spec) {
    if (permits < 1) {
      throw new picocli.CommandLine.ParameterException(spec.commandLine(),
          "--permits must be a positive number, was " + permits);
    }
  }

  @Command(name = "hold", mixinStandardHelpOptions = true,
      description = {
          "Takes --take permits (default 1) of the semaphore at <path>, runs <command> with the fencing token in"
              + " BATON_FENCING_TOKEN (and the path in BATON_LOCK_PATH), and gives them back when the command ends."
              + " As 'baton lock hold': the command runs in a process group of its own, stopped when the permits"
              + " are lost or baton dies. Put -- before the command:",
          "  baton semaphore hold db --permits 5 --redis redis://cache:6379 -- ./export.sh",
          "Exit codes as for 'baton lock hold': the command's own; 124 not obtained within --timeout;"
              + " 125 lost while the command ran; 126 cannot run; 127 not found; 1 baton failed; 2 bad usage."
      })
  static final class SemaphoreHold implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin StoreOptions store;

    @Parameters(index = "0", paramLabel = "<path>",
        description = "The semaphore's path, e.g. /semaphores/db; with --redis or --jdbc, its name.")
    String path;

    @Option(names = "--permits", required = true, paramLabel = "N",
        description = "The semaphore's number of permits, as its users create it.")
    int permits;

    @Option(names = "--take", paramLabel = "N", defaultValue = "1",
        description = "How many permits to hold, all or none. Default: ${DEFAULT-VALUE}.")
    int take;

    @Option(names = "--timeout", paramLabel = "DURATION", converter = DurationConverter.class,
        description = "Give up (exit 124) if the permits are not ours within this time; 0s tries once. Default: wait.")
    Duration timeout;

    @Option(names = "--grace", paramLabel = "DURATION", converter = DurationConverter.class, defaultValue = "5s",
        description = "After the permits are lost: how long the command's group has between TERM and KILL."
            + " Default: ${DEFAULT-VALUE}.")
    Duration grace;

    @Parameters(index = "1..*", arity = "1..*", paramLabel = "<command>", description = "The command and its arguments, after --.")
    List<String> command;

    @Override
    public Integer call() throws InterruptedException {
      checkPermits(permits, spec);
      if (take < 1 || take > permits) {
        throw new picocli.CommandLine.ParameterException(spec.commandLine(),
            "--take must be from 1 to --permits (" + permits + "), was " + take);
      }
      try (Store opened = store.open(spec, path, "semaphore path", true)) {
        Semaphore semaphore = opened.semaphore(path, permits);
        opened.expect(path, "semaphore", NodeKind.SEMAPHORE);
        // No timeout: as good as forever (a century), which acquire(n, timeout) takes as a Duration.
        return holdAndRun("baton semaphore hold", spec, path,
            take + (take == 1 ? " permit of " : " permits of ") + path,
            () -> semaphore.tryAcquire(take, timeout == null ? Duration.ofDays(36_500) : timeout), timeout,
            semaphore::holders, command, grace);
      }
    }
  }

  /**
   * Acquires as {@code acquiring} does, then runs {@code command} holding the lease, as {@code lock
   * hold} does; not obtained within {@code timeout}, says who holds it and exits 124.
   */
  static int holdAndRun(String who, CommandSpec spec, String path, String what,
      java.util.function.Supplier<Optional<Lease>> acquiring, Duration timeout,
      java.util.function.Supplier<List<LockOwner>> holders, List<String> command, Duration grace)
      throws InterruptedException {
    PrintWriter err = spec.commandLine().getErr();
    Optional<Lease> got = acquiring.get();
    if (got.isEmpty()) {
      List<LockOwner> now = holders.get();
      err.println(who + ": Did not get " + what + " within " + timeout.toMillis() + " ms; held by: "
          + (now.isEmpty() ? "nobody any more" : String.join("; ", now.stream().map(LockCommand::describe).toList())));
      err.flush();
      return LockHoldCommand.EXIT_NOT_OBTAINED;
    }
    try (Lease lease = got.get()) {
      return LockHoldCommand.runHolding(who, lease, command,
          java.util.Map.of("BATON_FENCING_TOKEN", Long.toString(lease.fencingToken()), "BATON_LOCK_PATH", path),
          grace, err, what);
    }
  }

  /** {@code baton queue}. */
  @Command(name = "queue", mixinStandardHelpOptions = true,
      description = "Put an item into a work queue, take one, or see how many wait (items as UTF-8 text).",
      subcommands = {Queue.Put.class, Queue.Take.class, Queue.ListItems.class, Queue.Dead.class})
  public static final class Queue extends CommandGroup {

    static DistributedQueue<String> open(Baton baton, String path, CommandSpec spec) {
      LockCommand.checkPath(path, "<path>", "queue path", spec);
      return baton.queue(path, Codecs.UTF8);
    }

    @Command(name = "put", mixinStandardHelpOptions = true, description = "Adds <item> at the tail of the queue at <path>.")
    static final class Put implements Callable<Integer> {
      @Spec CommandSpec spec;
      @Mixin ConnectOptions connection;

      @Parameters(index = "0", paramLabel = "<path>", description = "The queue's path, e.g. /queues/mail.")
      String path;

      @Parameters(index = "1", paramLabel = "<item>", description = "The item, as text.")
      String item;

      @Override
      public Integer call() {
        return write(spec, connection, path, "queue path", baton -> open(baton, path, spec).put(item));
      }
    }

    @Command(name = "take", mixinStandardHelpOptions = true,
        description = "Takes the oldest item of the queue at <path>, prints it and removes it (acknowledged once printed).")
    static final class Take implements Callable<Integer> {
      @Spec CommandSpec spec;
      @Mixin ConnectOptions connection;
      @Mixin JsonOutput json;

      @Parameters(index = "0", paramLabel = "<path>", description = "The queue's path, e.g. /queues/mail.")
      String path;

      @Option(names = "--timeout", paramLabel = "DURATION", converter = DurationConverter.class,
          description = "Give up (exit 124) if no item comes within this time; 0s looks once. Default: wait.")
      Duration timeout;

      @Override
      public Integer call() {
        LockCommand.checkPath(path, "<path>", "queue path", spec);
        try (Baton baton = connection.open(spec)) {
          DistributedQueue<String> queue = open(baton, path, spec);
          Optional<QueueItem<String>> taken = timeout == null ? Optional.of(queue.take()) : queue.take(timeout);
          if (taken.isEmpty()) {
            spec.commandLine().getErr().println("baton queue take: no item in " + path + " within "
                + DurationConverter.seconds(timeout));
            spec.commandLine().getErr().flush();
            return LockHoldCommand.EXIT_NOT_OBTAINED;
          }
          try (QueueItem<String> item = taken.get()) {
            PrintWriter out = spec.commandLine().getOut();
            if (json.enabled) {
              JsonOutput.print(out, JsonOutput.object("path", path, "item", item.path(), "value", item.value()));
            } else {
              out.println(item.value());
              out.flush();
            }
            item.ack();
          }
          return BatonCommand.OK;
        }
      }
    }

    @Command(name = "list", mixinStandardHelpOptions = true,
        description = "Prints how many items wait in the queue at <path>, and the next one.")
    static final class ListItems implements Callable<Integer> {
      @Spec CommandSpec spec;
      @Mixin ConnectOptions connection;
      @Mixin JsonOutput json;

      @Parameters(index = "0", paramLabel = "<path>", description = "The queue's path, e.g. /queues/mail.")
      String path;

      @Override
      public Integer call() {
        return list(spec, connection, json, path, path);
      }
    }

    /** Prints the size and the next item of the queue at {@code path}. */
    static int list(CommandSpec spec, ConnectOptions connection, JsonOutput json, String asked, String path) {
      LockCommand.checkPath(asked, "<path>", "queue path", spec);
      try (Baton baton = connection.open(spec)) {
        DistributedQueue<String> queue = open(baton, path, spec);
        RecipeCheck.expect(baton, path, connection.connectTimeout, "queue", NodeKind.QUEUE);
        int size = queue.size();
        Optional<String> next = queue.peek();
        PrintWriter out = spec.commandLine().getOut();
        if (json.enabled) {
          JsonOutput.print(out, JsonOutput.object("path", path, "size", size, "next", next.orElse(null)));
          return BatonCommand.OK;
        }
        out.println(size + (size == 1 ? " item" : " items") + " in " + path
            + next.map(n -> "; next: " + n).orElse(""));
        out.flush();
        return BatonCommand.OK;
      }
    }

    @Command(name = "dead", mixinStandardHelpOptions = true,
        description = "Prints how many dead letters (items that failed every attempt a consumer allows) wait in"
            + " <path>/dead, or in --dead-path, and the next one. They form a queue of their own:"
            + " 'baton queue take <path>/dead' takes one back.")
    static final class Dead implements Callable<Integer> {
      @Spec CommandSpec spec;
      @Mixin ConnectOptions connection;
      @Mixin JsonOutput json;

      @Parameters(index = "0", paramLabel = "<path>", description = "The queue's path, e.g. /queues/mail.")
      String path;

      @Option(names = "--dead-path", paramLabel = "PATH",
          description = "Where the consumers move dead letters, if not <path>/dead.")
      String deadPath;

      @Override
      public Integer call() {
        return list(spec, connection, json, path, deadPath != null ? deadPath : path + "/dead");
      }
    }
  }

  /** {@code baton barrier}. */
  @Command(name = "barrier", mixinStandardHelpOptions = true,
      description = "Set, remove or wait for a barrier (Baton's or Curator's DistributedBarrier).",
      subcommands = {BarrierCommand.Set.class, BarrierCommand.Remove.class, BarrierCommand.Wait.class})
  public static final class BarrierCommand extends CommandGroup {

    @Command(name = "set", mixinStandardHelpOptions = true, description = "Sets the barrier at <path>: waiters block.")
    static final class Set implements Callable<Integer> {
      @Spec CommandSpec spec;
      @Mixin ConnectOptions connection;

      @Parameters(index = "0", paramLabel = "<path>", description = "The barrier's path, e.g. /barriers/deploy.")
      String path;

      @Override
      public Integer call() {
        return write(spec, connection, path, "barrier path", baton -> baton.barrier(path).set());
      }
    }

    @Command(name = "remove", mixinStandardHelpOptions = true, description = "Removes the barrier at <path>: waiters go on.")
    static final class Remove implements Callable<Integer> {
      @Spec CommandSpec spec;
      @Mixin ConnectOptions connection;

      @Parameters(index = "0", paramLabel = "<path>", description = "The barrier's path, e.g. /barriers/deploy.")
      String path;

      @Override
      public Integer call() {
        return write(spec, connection, path, "barrier path", baton -> baton.barrier(path).remove());
      }
    }

    @Command(name = "wait", mixinStandardHelpOptions = true,
        description = "Waits until the barrier at <path> is removed (returns at once if it is not set).")
    static final class Wait implements Callable<Integer> {
      @Spec CommandSpec spec;
      @Mixin ConnectOptions connection;

      @Parameters(index = "0", paramLabel = "<path>", description = "The barrier's path, e.g. /barriers/deploy.")
      String path;

      @Option(names = "--timeout", paramLabel = "DURATION", converter = DurationConverter.class,
          description = "Give up (exit 124) if the barrier is still set after this time. Default: wait.")
      Duration timeout;

      @Override
      public Integer call() {
        LockCommand.checkPath(path, "<path>", "barrier path", spec);
        try (Baton baton = connection.open(spec)) {
          Barrier barrier = baton.barrier(path);
          if (timeout == null) {
            barrier.await();
          } else if (!barrier.await(timeout)) {
            spec.commandLine().getErr().println("baton barrier wait: " + path + " is still set after "
                + DurationConverter.seconds(timeout));
            spec.commandLine().getErr().flush();
            return LockHoldCommand.EXIT_NOT_OBTAINED;
          }
          return BatonCommand.OK;
        }
      }
    }
  }
}
