package dev.baton.cli.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.cli.BatonCommand;
import dev.baton.cli.console.ConsoleCommand;
import dev.baton.config.ConfigCenter;
import dev.baton.discovery.ServiceInstance;
import dev.baton.discovery.ServiceRegistry;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The commands that write config and follow changes: config set/delete/watch, cache, service register. */
public class FollowingCommandsTest extends StandaloneZooKeeper {

  /** Makes command objects as picocli would, and keeps each one's stop latch, to end it like Ctrl-C. */
  public static final class Stoppable implements CommandLine.IFactory {
    final List<CountDownLatch> stops = new CopyOnWriteArrayList<>();

    @Override
    public <K> K create(Class<K> type) throws Exception {
      K made = CommandLine.defaultFactory().create(type);
      if (made instanceof CacheCommand c) {
        stops.add(c.stop);
      } else if (made instanceof ConfigWriteCommands.Watch w) {
        stops.add(w.stop);
      } else if (made instanceof ConsoleCommand c) {
        stops.add(c.stop);
      }
      return made;
    }

    public void stopAll() {
      stops.forEach(CountDownLatch::countDown);
    }
  }

  /** Runs a command that follows changes on its own thread, its output readable while it runs. */
  public static final class Following {
    public final Stoppable factory = new Stoppable();
    final StringWriter out = new StringWriter();
    public final CompletableFuture<Integer> exit;

    public Following(String... args) {
      CommandLine commandLine = BatonCommand.newCommandLine(factory);
      commandLine.setOut(new PrintWriter(out, true));
      commandLine.setErr(new PrintWriter(new StringWriter(), true));
      exit = CompletableFuture.supplyAsync(() -> commandLine.execute(args));
    }

    public String output() {
      synchronized (out) {
        return out.toString();
      }
    }
  }

  @Test
  void configSetDelete_writeKeys_andIfVersionRefusesAStaleWrite() {
    Cli.Run set = Cli.run("config", "set", "/cli-cfg", "db/pool", "10", "--connect", cluster.connectString());
    assertThat(set.exitCode()).as(set.err()).isZero();
    assertThat(set.out().strip()).isEqualTo("version=0");
    assertThat(Cli.run("config", "set", "/cli-cfg", "db/pool", "12", "--if-version", "0",
        "--connect", cluster.connectString()).out().strip()).isEqualTo("version=1");

    Cli.Run stale = Cli.run("config", "set", "/cli-cfg", "db/pool", "99", "--if-version", "0",
        "--connect", cluster.connectString());
    assertThat(stale.exitCode()).isEqualTo(BatonCommand.FAILURE);
    assertThat(stale.err()).contains("not written: db/pool is at version 1, not 0");
    try (ConfigCenter config = ConfigCenter.open(baton, "/cli-cfg")) {
      assertThat(config.get("db/pool")).hasValue("12");
    }

    assertThat(Cli.run("config", "delete", "/cli-cfg", "db/pool", "--connect", cluster.connectString()).exitCode()).isZero();
    Cli.Run again = Cli.run("config", "delete", "/cli-cfg", "db/pool", "--connect", cluster.connectString());
    assertThat(again.exitCode()).isEqualTo(BatonCommand.FAILURE);
    assertThat(again.err()).contains("no key db/pool below /cli-cfg");
    Cli.Run badKey = Cli.run("config", "set", "/cli-cfg", "/abs", "1", "--connect", cluster.connectString());
    assertThat(badKey.exitCode()).isEqualTo(BatonCommand.USAGE);
    assertThat(badKey.err()).contains("/abs");
  }

  @Test
  void configWatch_printsEachChange() {
    Following watch = new Following("config", "watch", "/cli-watch", "--connect", cluster.connectString());
    try (ConfigCenter config = ConfigCenter.open(baton, "/cli-watch")) {
      await().until(() -> !watch.factory.stops.isEmpty());
      await().untilAsserted(() -> {
        config.set("feature/x", "on"); // written until the watcher, which may still be loading, has heard one
        assertThat(watch.output()).contains("feature/x: ");
      });
      config.delete("feature/x");
      await().until(() -> watch.output().contains("feature/x: on -> (deleted)"));
    } finally {
      watch.factory.stopAll();
    }
    assertThat(watch.exit.join()).isZero();
  }

  @Test
  void cache_printsTheTreeThenEachChange() {
    baton.counter("/cli-cache/a").addAndGet(1);
    Following cache = new Following("cache", "/cli-cache", "--connect", cluster.connectString());
    try {
      await().until(() -> cache.output().contains("initialized: 2 nodes"));
      assertThat(cache.output()).contains("added /cli-cache/a version=0 data=1");
      baton.counter("/cli-cache/a").addAndGet(1);
      await().until(() -> cache.output().contains("changed /cli-cache/a version=1 data=2"));
    } finally {
      cache.factory.stopAll();
    }
    assertThat(cache.exit.join()).isZero();
  }

  @Test
  void serviceRegister_holdsTheInstanceWhileItsCommandRuns(@TempDir Path dir) throws Exception {
    Path done = dir.resolve("done");
    CompletableFuture<Cli.Run> register = CompletableFuture.supplyAsync(() -> Cli.run("service", "register",
        "/cli-reg", "orders", "--address", "10.0.0.9", "--port", "8080", "--id", "o-9", "--payload", "zone=eu",
        "--connect", cluster.connectString(), "--",
        "sh", "-c", "while [ ! -f '" + done + "' ]; do sleep 0.05; done; exit 3"));
    try (ServiceRegistry registry = ServiceRegistry.open(baton, "/cli-reg")) {
      await().until(() -> registry.instances("orders").size() == 1);
      ServiceInstance instance = registry.instances("orders").get(0);
      assertThat(instance.id()).isEqualTo("o-9");
      assertThat(instance.address()).isEqualTo("10.0.0.9");
      assertThat(instance.payload()).containsEntry("zone", "eu");
      Files.writeString(done, "");
      Cli.Run run = register.join();
      assertThat(run.exitCode()).as(run.err()).isEqualTo(3);
      await().until(() -> registry.instances("orders").isEmpty());
    }
  }
}
