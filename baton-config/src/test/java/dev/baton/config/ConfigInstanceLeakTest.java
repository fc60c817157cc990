package dev.baton.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.ClusterTestSupport;
import dev.baton.testkit.FaultProxy;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A config center's live-instance node whose create was applied but whose reply was lost: the
 * node lives with the session, so unless the config center finds it, it is listed as a live
 * instance (and counted by gray rules) until the client's session ends, though the config center
 * is closed. The link is slowed so the create reaches the ensemble, then cut before its reply.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ConfigInstanceLeakTest extends ClusterTestSupport {
  private static final Duration WAIT = Duration.ofSeconds(10);

  private FaultProxy proxy;

  /** Opens an instance whose announcement's reply is lost; returns it once open, disconnected. */
  private ConfigCenter openWithLostAnnouncement(String prefix) throws Exception {
    raw.zk().create(prefix + ".instances", null, org.apache.zookeeper.ZooDefs.Ids.OPEN_ACL_UNSAFE,
        org.apache.zookeeper.CreateMode.PERSISTENT);
    proxy = closing(FaultProxy.start(cluster.address(0)));
    var baton = baton(proxy.connectString(), Duration.ofSeconds(20));
    proxy.delay(Duration.ofMillis(500));
    CompletableFuture<ConfigCenter> opening = CompletableFuture.supplyAsync(() -> closing(ConfigCenter.open(baton,
        prefix, ConfigOptions.defaults().withInstance("leaky", Map.of()))));
    awaitChildren(prefix + ".instances", 1); // created on the ensemble; its reply is in the delay line
    proxy.cut();
    proxy.delay(Duration.ZERO);
    return opening.get(WAIT.toSeconds(), TimeUnit.SECONDS);
  }

  @Test
  void closedWhileTheAnnouncementsReplyIsLost_theNodeIsFoundAndDeleted() throws Exception {
    String prefix = "/cfg-instance-leak-closed";
    ConfigCenter config = openWithLostAnnouncement(prefix);

    config.close(); // while disconnected
    proxy.restore();

    awaitChildren(prefix + ".instances", 0);
  }

  @Test
  void reconnectedAfterTheAnnouncementsReplyIsLost_findsItsNode_andCloseDeletesIt() throws Exception {
    String prefix = "/cfg-instance-leak-reconnected";
    ConfigCenter config = openWithLostAnnouncement(prefix);
    proxy.restore();
    await().atMost(WAIT).until(config::isSynced);
    await().atMost(WAIT).until(() -> config.grayInstances().size() == 1);
    assertThat(raw.children(prefix + ".instances")).as("announced once, not twice").hasSize(1);

    config.close();

    awaitChildren(prefix + ".instances", 0);
  }
}
