package dev.baton.examples;

import dev.baton.Baton;
import dev.baton.discovery.PickStrategy;
import dev.baton.discovery.ServiceInstance;
import dev.baton.discovery.ServiceRegistry;
import dev.baton.discovery.ServiceView;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Collectors;

/**
 * Scenario 4, the naming service: two providers of {@code www.test1.com} register, a caller picks
 * among the live ones from its local view, and when one provider's process goes away (its client
 * closes, as a crash would end its session) the caller stops seeing it.
 *
 * <p>The instance id is the provider's {@code ip:port}, so the nodes read as the hand-written
 * layout does ({@code /DDNS/www.test1.com/10.0.0.1:8080}), while each node's data is
 * curator-x-discovery's JSON, which Curator and Spring Cloud Zookeeper read.
 *
 * <p>Run: {@code java dev.baton.examples.NamingService [host:port]}.
 */
public final class NamingService {
  /** The providers seen before and after one left, and whom round robin picked. */
  public record Result(Set<String> before, Set<String> after, Set<String> picked) {}

  public static void main(String[] args) {
    DevServers.withZooKeeper(args, zk -> System.out.println(run(zk)));
  }

  public static Result run(String connectString) {
    try (Baton caller = Baton.connect(connectString); Baton provider1 = Baton.connect(connectString)) {
      ServiceRegistry callerRegistry = ServiceRegistry.open(caller, "/DDNS");
      ServiceView view = callerRegistry.watch("www.test1.com");
      ServiceRegistry.open(provider1, "/DDNS").register(instance("10.0.0.1", 8080));
      Set<String> before;
      Set<String> picked = new TreeSet<>();
      try (Baton provider2 = Baton.connect(connectString)) {
        ServiceRegistry.open(provider2, "/DDNS").register(instance("10.0.0.2", 8080));
        before = awaitIds(view, 2);
        for (int i = 0; i < 4; i++) {
          view.pick(PickStrategy.ROUND_ROBIN).ifPresent(chosen -> picked.add(chosen.id()));
        }
      }
      Set<String> after = awaitIds(view, 1);
      return new Result(before, after, picked);
    }
  }

  private static ServiceInstance instance(String ip, int port) {
    return ServiceInstance.builder("www.test1.com").id(ip + ":" + port).address(ip).port(port).build();
  }

  /** Waits, on the view's own notices, until it shows {@code count} providers. */
  private static Set<String> awaitIds(ServiceView view, int count) {
    CompletableFuture<Set<String>> shown = new CompletableFuture<>();
    Consumer<List<ServiceInstance>> listener = live -> {
      if (live.size() == count) {
        shown.complete(ids(live));
      }
    };
    view.addListener(listener, Runnable::run);
    try {
      List<ServiceInstance> now = view.instances();
      if (now.size() == count) {
        shown.complete(ids(now));
      }
      return shown.get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("the view did not show " + count + " providers: " + view.instances(), e);
    } finally {
      view.removeListener(listener);
    }
  }

  private static Set<String> ids(List<ServiceInstance> instances) {
    return instances.stream().map(ServiceInstance::id).collect(Collectors.toCollection(TreeSet::new));
  }

  private NamingService() {}
}
