package dev.baton.cli;

import dev.baton.Baton;
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
        + " Baton's or Curator's), then every participant in line, the leader first.")
public final class LeaderCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin ConnectOptions connection;
  @Mixin JsonOutput json;

  @Parameters(index = "0", paramLabel = "<path>", description = "The election's path, e.g. /election/reports.")
  String path;

  @Override
  public Integer call() {
    LockCommand.checkPath(path, "<path>", "election path", spec);
    try (Baton baton = connection.open(spec)) {
      // A leader selector stands on a mutex, so its nodes are a mutex's.
      RecipeCheck.expect(baton, path, connection.connectTimeout, "election", NodeKind.LEADER_LATCH, NodeKind.MUTEX);
      // Reading only: neither object takes part until started, and neither is started here.
      String kind = "leader latch";
      List<String> line = baton.leaderLatch(path, "baton-cli").participants();
      if (line.isEmpty()) {
        kind = "leader selector";
        line = baton.leaderSelector(path, "baton-cli", lease -> { }).participants();
      }
      PrintWriter out = spec.commandLine().getOut();
      if (json.enabled) {
        JsonOutput.print(out, JsonOutput.object("path", path, "kind", line.isEmpty() ? null : kind,
            "leader", line.isEmpty() ? null : line.get(0), "participants", line));
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
