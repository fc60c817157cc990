package dev.baton.examples;

import dev.baton.Baton;
import dev.baton.barrier.Barrier;
import dev.baton.barrier.DoubleBarrier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Scenario 7, barriers: workers wait at a plain barrier until the coordinator removes it, then
 * pass a double barrier, so all start their shard together and all finish before any moves on.
 *
 * <p>Run: {@code java dev.baton.examples.Barriers [host:port]}.
 */
public final class Barriers {
  /** What happened, in order: "released", "enter wN", "work wN", "leave wN". */
  public record Result(List<String> events) {}

  public static void main(String[] args) {
    DevServers.withZooKeeper(args, zk -> run(zk, 4).events().forEach(System.out::println));
  }

  public static Result run(String connectString, int workers) {
    List<String> events = new CopyOnWriteArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(workers);
    List<Baton> clients = new ArrayList<>();
    try (Baton coordinator = Baton.connect(connectString)) {
      Barrier gate = coordinator.barrier("/barriers/deploy");
      gate.set();
      List<Future<?>> running = new ArrayList<>();
      for (int w = 1; w <= workers; w++) {
        String name = "w" + w;
        Baton client = Baton.connect(connectString);
        clients.add(client);
        running.add(pool.submit(() -> {
          client.barrier("/barriers/deploy").await();
          DoubleBarrier batch = client.doubleBarrier("/barriers/batch", workers);
          batch.enter(Duration.ofSeconds(30));
          events.add("enter " + name);
          events.add("work " + name);
          batch.leave(Duration.ofSeconds(30));
          events.add("leave " + name);
          return null;
        }));
      }
      events.add("released");
      gate.remove();
      for (Future<?> worker : running) {
        worker.get();
      }
      return new Result(List.copyOf(events));
    } catch (Exception e) {
      throw new IllegalStateException("the barrier example failed", e);
    } finally {
      pool.shutdownNow();
      clients.forEach(Baton::close);
    }
  }

  private Barriers() {}
}
