package dev.baton.cli.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.Baton;
import dev.baton.Codecs;
import dev.baton.cli.BatonCommand;
import dev.baton.config.ConfigCenter;
import dev.baton.discovery.Registration;
import dev.baton.discovery.ServiceInstance;
import dev.baton.discovery.ServiceRegistry;
import dev.baton.leader.LeaderLatch;
import dev.baton.lock.Lease;
import dev.baton.lock.Mutex;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.RetryOneTime;
import org.junit.jupiter.api.Test;

/** {@code baton tree}: every node named for what it is, with its holder, leader or size. */
class TreeCommandTest extends StandaloneZooKeeper {

  @Test
  void tree_namesEachRecipe_withItsHolderLeaderOrSize() throws Exception {
    Mutex mutex = baton.mutex("/app/locks/sku-42");
    try (Lease lease = mutex.acquire(Duration.ofSeconds(5));
         LeaderLatch latch = baton.leaderLatch("/app/election", "worker-1");
         ConfigCenter config = ConfigCenter.open(baton, "/app/config");
         ServiceRegistry registry = ServiceRegistry.open(baton, "/app/services");
         Registration registration = registry.register(ServiceInstance.builder("orders").id("o-1")
             .address("10.0.0.1").port(80).build())) {
      CompletableFuture<Lease> waiter = mutex.acquireAsync();
      await().until(() -> mutex.waiters().size() == 1);
      latch.start();
      assertThat(latch.await(Duration.ofSeconds(10))).isTrue();
      config.create("db/url", "jdbc:h2:mem");
      baton.queue("/app/queue", Codecs.UTF8).put("job-1");
      Lease read = baton.readWriteLock("/app/locks/catalog").readLock().acquire(Duration.ofSeconds(5));

      Cli.Run run = Cli.run("tree", "/app", "--connect", cluster.connectString());

      assertThat(run.exitCode()).as(run.err()).isZero();
      assertThat(run.out()).contains("    sku-42  [mutex] held by ")
          .contains("token " + lease.fencingToken() + ", 1 waiting")
          .contains("  election  [leader latch] leader worker-1, 1 participants")
          .contains("      url  = jdbc:h2:mem")
          .contains("  queue  [queue] 1 item, 0 claimed")
          .contains("    catalog  [read-write lock] 1 reader")
          .contains("    orders  [service] 1 instance: o-1")
          .doesNotContain("lock-0");

      JsonNode json = new ObjectMapper().readTree(Cli.run("tree", "/app", "--json", "--connect", cluster.connectString()).out());
      assertThat(json.get("nodes")).anySatisfy(n -> {
        assertThat(n.get("path").asText()).isEqualTo("/app/locks/sku-42");
        assertThat(n.get("kind").asText()).isEqualTo("mutex");
      });
      read.close();
      lease.close();
      waiter.join().close();
    }
  }

  @Test
  void tree_namesCuratorsLockToo() throws Exception {
    try (CuratorFramework curator = CuratorFrameworkFactory.newClient(cluster.connectString(), new RetryOneTime(100))) {
      curator.start();
      InterProcessMutex lock = new InterProcessMutex(curator, "/curator-app/job");
      lock.acquire();
      try {
        Cli.Run run = Cli.run("tree", "/curator-app", "--connect", cluster.connectString());
        assertThat(run.out()).contains("  job  [mutex] held by ").contains("nobody waiting");
      } finally {
        lock.release();
      }
    }
  }

  /** The help and the README show 'baton tree /': the whole tree, not "cache path '/' is the root". */
  @Test
  void tree_ofTheRoot_showsTheWholeTree() throws Exception {
    try (Lease lease = baton.mutex("/root-app/locks/job").acquire(Duration.ofSeconds(5))) {
      Cli.Run run = Cli.run("tree", "/", "--connect", cluster.connectString());

      assertThat(run.exitCode()).as(run.err()).isZero();
      assertThat(run.out()).startsWith("/").contains("\n  root-app\n", "\n    locks\n")
          .contains("      job  [mutex] held by ").contains("token " + lease.fencingToken());
    }
  }

  /** Ids are random UUIDs by default, as a double barrier's member nodes are: the instances' JSON tells them apart. */
  @Test
  void aServiceWithUuidIds_isAService_andADoubleBarrierStillADoubleBarrier_byBatonAndByCurator() throws Exception {
    try (ServiceRegistry registry = ServiceRegistry.open(baton, "/uuid-app/services");
         Registration first = registry.register(ServiceInstance.builder("orders").address("10.0.0.1").port(80).build());
         Registration second = registry.register(ServiceInstance.builder("orders").address("10.0.0.2").port(80).build());
         CuratorFramework curator = CuratorFrameworkFactory.newClient(cluster.connectString(), new RetryOneTime(100))) {
      assertThat(first.instance().id()).matches("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
      curator.start();
      dev.baton.barrier.DoubleBarrier batons = baton.doubleBarrier("/uuid-app/baton-barrier", 1);
      batons.enter(Duration.ofSeconds(10));
      org.apache.curator.framework.recipes.barriers.DistributedDoubleBarrier curators =
          new org.apache.curator.framework.recipes.barriers.DistributedDoubleBarrier(curator, "/uuid-app/curator-barrier", 1);
      assertThat(curators.enter(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
      try {
        Cli.Run run = Cli.run("tree", "/uuid-app", "--connect", cluster.connectString());

        assertThat(run.exitCode()).as(run.err()).isZero();
        assertThat(run.out()).contains("    orders  [service] 2 instances: ")
            .contains("  baton-barrier  [double barrier] 1 members, ready")
            .contains("  curator-barrier  [double barrier] 1 members, ready");

        Cli.Run holder = Cli.run("lock", "holder", "/uuid-app/services/orders", "--connect", cluster.connectString());
        assertThat(holder.exitCode()).isEqualTo(BatonCommand.FAILURE);
        assertThat(holder.err()).contains("it is a service");
      } finally {
        batons.leave();
        curators.leave();
      }
    }
  }

  @Test
  void tree_ofAMissingPath_failsNamingIt() {
    Cli.Run run = Cli.run("tree", "/no/such/tree", "--connect", cluster.connectString());
    assertThat(run.exitCode()).isEqualTo(BatonCommand.FAILURE);
    assertThat(run.err()).contains("no node /no/such/tree");
  }

  @Test
  void nodeKind_needsEveryChildToFitTheLayout() {
    assertThat(NodeKind.of(Map.of("_c_0b1e5d4e-2a6b-4b1a-9c55-5d2c3c0e9f11-lock-0000000003", new byte[0])))
        .isEqualTo(NodeKind.MUTEX);
    assertThat(NodeKind.of(Map.of("lock-0000000003", new byte[0], "notes", new byte[0]))).isEqualTo(NodeKind.PLAIN);
    assertThat(NodeKind.of(Map.of("leases", new byte[0], "locks", new byte[0]))).isEqualTo(NodeKind.SEMAPHORE);
    assertThat(NodeKind.of(Map.of("claims", new byte[0], "dead", new byte[0]))).isEqualTo(NodeKind.QUEUE);
    assertThat(NodeKind.of(Map.of("claims", new byte[0], "notes", new byte[0]))).isEqualTo(NodeKind.PLAIN);
    assertThat(NodeKind.of(Map.of())).isEqualTo(NodeKind.PLAIN);
  }
}
