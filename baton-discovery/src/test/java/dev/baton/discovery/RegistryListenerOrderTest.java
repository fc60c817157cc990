package dev.baton.discovery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.ClusterTestSupport;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingDeque;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingDeque;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Listeners on an executor that runs tasks in any order (a pool) still hear the changes one at a
 * time and in the order they happened. The executor here is the worst a pool may do: it holds the
 * tasks, and the test runs them newest first.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class RegistryListenerOrderTest extends ClusterTestSupport {
  private static final Duration WAIT = Duration.ofSeconds(15);

  /** Holds the tasks handed to it; {@link #runNewestFirst} runs them, the latest first. */
  private static final class HeldExecutor implements Executor {
    private final BlockingDeque<Runnable> tasks = new LinkedBlockingDeque<>();

    @Override
    public void execute(Runnable task) {
      tasks.add(task);
    }

    void runNewestFirst() {
      Runnable task;
      while ((task = tasks.pollLast()) != null) {
        task.run();
      }
    }
  }

  private static ServiceInstance instance(String id) {
    return ServiceInstance.builder("orders").id(id).address("10.0.0.1").port(8080).build();
  }

  @Test
  void viewListenerOnAPool_hearsTheChangesInOrder() {
    String base = "/order-view";
    ServiceRegistry provider = closing(ServiceRegistry.open(baton(), base));
    ServiceView view = closing(ServiceRegistry.open(baton(), base)).watch("orders");
    HeldExecutor pool = new HeldExecutor();
    List<Integer> told = new CopyOnWriteArrayList<>();
    view.addListener(instances -> told.add(instances.size()), pool);

    provider.register(instance("a"));
    provider.register(instance("b"));
    provider.register(instance("c"));
    // The view has the third change: the first two were handed to the listener's executor before it.
    await().atMost(WAIT).until(() -> view.instances().size() == 3);
    pool.runNewestFirst();

    assertThat(told).as("sizes told, in the order told").startsWith(1, 2).isSorted();
    await().atMost(WAIT).until(() -> {
      pool.runNewestFirst();
      return told.size() == 3;
    });
    assertThat(told).containsExactly(1, 2, 3);
  }

  @Test
  void servicesListenerOnAPool_hearsTheChangesInOrder() {
    String base = "/order-services";
    ServiceRegistry provider = closing(ServiceRegistry.open(baton(), base));
    ServiceRegistry watcher = closing(ServiceRegistry.open(baton(), base));
    assertThat(watcher.services()).isEmpty();
    HeldExecutor pool = new HeldExecutor();
    List<Set<String>> told = new CopyOnWriteArrayList<>();
    watcher.addServicesListener(told::add, pool);

    provider.register(ServiceInstance.builder("s1").id("x").address("10.0.0.1").build());
    provider.register(ServiceInstance.builder("s2").id("x").address("10.0.0.1").build());
    provider.register(ServiceInstance.builder("s3").id("x").address("10.0.0.1").build());
    await().atMost(WAIT).until(() -> watcher.services().size() == 3);
    pool.runNewestFirst();

    assertThat(told).as("names told, in the order told").startsWith(Set.of("s1"), Set.of("s1", "s2"));
    await().atMost(WAIT).until(() -> {
      pool.runNewestFirst();
      return told.size() == 3;
    });
    assertThat(told).containsExactly(Set.of("s1"), Set.of("s1", "s2"), Set.of("s1", "s2", "s3"));
  }
}
