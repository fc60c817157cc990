package dev.baton.cli.command;

import dev.baton.Baton;
import dev.baton.cache.CacheListener;
import dev.baton.cache.CachedNode;
import dev.baton.cache.TreeCache;
import dev.baton.cli.BatonCommand;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code baton cache}: follows a subtree with Baton's {@link TreeCache} and prints each change. */
@Command(name = "cache", mixinStandardHelpOptions = true,
    description = "Follows the nodes at and below <path> (one persistent recursive watch) and prints what is there,"
        + " then every node added, changed or removed as it happens, until Ctrl-C. After a lost connection it"
        + " catches up and prints exactly what changed meanwhile.")
public final class CacheCommand implements Callable<Integer> {
  @Spec CommandSpec spec;
  @Mixin ConnectOptions connection;
  @Mixin JsonOutput json;

  @Parameters(index = "0", paramLabel = "<path>", description = "The subtree's root, e.g. /config.")
  String path;

  /** Released by Ctrl-C; tests release it to stop following. */
  final CountDownLatch stop = new CountDownLatch(1);

  @Override
  public Integer call() throws InterruptedException {
    if (!path.equals("/")) {
      LockCommand.checkPath(path, "<path>", "path", spec);
    }
    PrintWriter out = spec.commandLine().getOut();
    try (Baton baton = connection.open(spec); TreeCache cache = baton.cache(path)) {
      cache.addListener(new CacheListener() {
        @Override
        public void added(CachedNode node) {
          print("added", node);
        }

        @Override
        public void changed(CachedNode before, CachedNode after) {
          print("changed", after);
        }

        @Override
        public void removed(CachedNode node) {
          print("removed", node);
        }

        @Override
        public void initialized() {
          synchronized (out) {
            if (json.enabled) {
              JsonOutput.print(out, JsonOutput.object("event", "initialized", "nodes", cache.size()));
            } else {
              out.println("initialized: " + cache.size() + " nodes");
              out.flush();
            }
          }
        }

        private void print(String event, CachedNode node) {
          synchronized (out) {
            if (json.enabled) {
              JsonOutput.print(out, JsonOutput.object("event", event, "path", node.path(), "version", node.version(),
                  "data", node.dataAsString()));
            } else {
              out.println(event + " " + node.path() + " version=" + node.version()
                  + (node.hasData() ? " data=" + node.dataAsString() : ""));
              out.flush();
            }
          }
        }
      });
      cache.start();
      UntilStopped.await(stop, "baton-cache");
    }
    return BatonCommand.OK;
  }
}
