package dev.baton.cli.command;

import dev.baton.Baton;
import dev.baton.cli.BatonCommand;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code baton leader}: who leads the election at a path and who is in line, for Baton's and
 * Curator's leader latches ({@code latch-} nodes) and leader selectors ({@code lock-} nodes).
 */
@Command(name = "leader", mixinStandardHelpOptions = true,
    description = "Prints who leads the election at <path> (a leader latch or a leader selector,"
        + " Baton's or Curator's; on Redis or SQL, Baton's), then every participant in line, the leader first"
        + " (on SQL the leader only: the lock table keeps no queue).")
public final class LeaderCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin StoreOptions store;
  @Mixin JsonOutput json;

  @Parameters(index = "0", paramLabel = "<path>",
      description = "The election's path, e.g. /election/reports; with --redis or --jdbc, its name.")
  String path;

  @Override
  public Integer call() {
    try (Store opened = store.open(spec, path, "election path", false)) {
      // A leader selector stands on a mutex, so its nodes are a mutex's.
      opened.expect(path, "election", NodeKind.LEADER_LATCH, NodeKind.MUTEX);
      // Reading only: neither object takes part until started, and neither is started here.
      String kind = "leader latch";
      List<String> line = opened.leaderLatch(path, "baton-cli").participants();
      Baton zooKeeper = opened.zooKeeper();
      if (zooKeeper == null) {
        kind = "election"; // on Redis and SQL a latch and a selector are the same lock: no telling them apart
      } else if (line.isEmpty()) {
        kind = "leader selector";
        line = zooKeeper.leaderSelector(path, "baton-cli", lease -> { }).participants();
      }
      if (opened.isSql() && !line.isEmpty()) {
        // The lock table keeps no queue: a reader sees the leader only.
        spec.commandLine().getErr().println(spec.qualifiedName() + ": the SQL lock table keeps no queue:"
            + " only the leader of " + path + " is known, not who waits");
        spec.commandLine().getErr().flush();
      }
      PrintWriter out = spec.commandLine().getOut();
      if (json.enabled) {
        JsonOutput.print(out, JsonOutput.object("path", path, "backend", opened.backend(),
            "kind", line.isEmpty() ? null : kind, "leader", line.isEmpty() ? null : line.get(0), "participants", line));
        return BatonCommand.OK;
      }
      if (line.isEmpty()) {
        out.println("nobody leads " + path + ": it has no participants");
      } else {
        out.println(line.get(0) + " leads " + path + " (" + kind + ", " + line.size()
            + (line.size() == 1 ? " participant)" : " participants)"));
        for (int i = 0; i < line.size(); i++) {
          out.println((i + 1) + " " + line.get(i));
        }
      }
      out.flush();
      return BatonCommand.OK;
    }
  }
}
