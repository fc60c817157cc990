package dev.baton.cli.command;

import dev.baton.leader.LeaderLatch;
import dev.baton.leader.LeadershipListener;
import dev.baton.lock.Lease;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code baton election join}: runs a command while this process leads an election, as {@code etcdctl elect} does. */
@Command(name = "election", mixinStandardHelpOptions = true,
    description = "Take part in a leader election (Baton's or Curator's LeaderLatch; on Redis or SQL, Baton's),"
        + " or see who leads it.",
    subcommands = {ElectionCommand.Join.class, LeaderCommand.class})
public final class ElectionCommand extends CommandGroup {

  @Command(name = "join", mixinStandardHelpOptions = true,
      description = {
          "Joins the election at <path> as a leader latch participant, waits until it leads, then runs"
              + " <command> with the leadership's fencing token in BATON_FENCING_TOKEN (and the path in"
              + " BATON_ELECTION_PATH). When the command ends, leadership is given up.",
          "If leadership is lost while the command runs (the connection was suspended or the session"
              + " expired), the command's whole process group gets TERM, then KILL after --grace.",
          "Exit codes as for 'baton lock hold': the command's own; 124 not leader within --timeout;"
              + " 125 leadership lost while the command ran; 126 cannot run; 127 not found."
      })
  static final class Join implements Callable<Integer> {
    @Spec CommandSpec spec;
    @Mixin StoreOptions store;

    @Option(names = "--id", paramLabel = "ID",
        description = "This participant's id, shown by 'baton leader'. Default: host:pid.")
    String id;

    @Option(names = "--timeout", paramLabel = "DURATION", converter = DurationConverter.class,
        description = "Give up (exit 124) if not leader within this time. Default: wait.")
    Duration timeout;

    @Option(names = "--grace", paramLabel = "DURATION", converter = DurationConverter.class, defaultValue = "5s",
        description = "After leadership is lost: how long the command's group has between TERM and KILL."
            + " Default: ${DEFAULT-VALUE}.")
    Duration grace;

    @Parameters(index = "0", paramLabel = "<path>",
        description = "The election's path, e.g. /election/reports; with --redis or --jdbc, its name.")
    String path;

    @Parameters(index = "1..*", arity = "1..*", paramLabel = "<command>", description = "The command and its arguments, after --.")
    List<String> command;

    @Override
    public Integer call() throws InterruptedException {
      String participant = id != null ? id : ManagementFactory.getRuntimeMXBean().getName().replace('@', ':');
      PrintWriter err = spec.commandLine().getErr();
      // On ZooKeeper the session timeout is how long the leadership outlives baton: said when granted otherwise.
      try (Store opened = store.open(spec, path, "election path", true);
          LeaderLatch latch = opened.leaderLatch(path, participant)) {
        latch.start();
        // No timeout: as good as forever (a century), which the latch's await takes as a Duration.
        boolean leading = latch.await(timeout == null ? Duration.ofDays(36_500) : timeout);
        Lease leadership = latch.leadership().orElse(null);
        if (!leading || leadership == null) {
          err.println("baton election join: not leader of " + path
              + (timeout == null ? "" : " within " + DurationConverter.seconds(timeout))
              + "; leader: " + latch.leaderId().orElse("nobody"));
          err.flush();
          return LockHoldCommand.EXIT_NOT_OBTAINED;
        }
        return GuardedCommand.run("baton election join", command,
            Map.of("BATON_FENCING_TOKEN", Long.toString(leadership.fencingToken()), "BATON_ELECTION_PATH", path),
            grace, err, "leadership of " + path, stop -> {
              latch.addListener(new LeadershipListener() {
                @Override
                public void leadershipGained(Lease lease) {
                  // The command runs already; one stopped by a suspension is not started again.
                }

                @Override
                public void leadershipLost(Lease lease) {
                  stop.run();
                }
              });
              if (!leadership.isValid()) {
                stop.run();
              }
            });
      }
    }
  }
}
