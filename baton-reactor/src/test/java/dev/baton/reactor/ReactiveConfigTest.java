package dev.baton.reactor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.config.ConfigCenter;
import dev.baton.testkit.ZooKeeperExtension;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.Disposable;
import reactor.test.StepVerifier;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ReactiveConfigTest {
  private static final Duration WAIT = Duration.ofSeconds(20);
  @RegisterExtension
  static final ZooKeeperExtension zk = new ZooKeeperExtension();

  @Test
  void changesOfAPrefix_arriveInOrder_andOthersDoNot() {
    Baton baton = zk.closing(Baton.connect(zk.connectString()));
    ConfigCenter config = zk.closing(ConfigCenter.open(baton, "/reactive-config"));

    StepVerifier.create(ReactiveConfig.changes(config, "db"))
        .then(() -> {
          config.set("db2", "not mine");
          config.set("db/url", "jdbc:one");
          config.set("db/url", "jdbc:two");
          config.delete("db/url");
        })
        .expectNext(new ConfigChange("db/url", null, "jdbc:one"))
        .expectNext(new ConfigChange("db/url", "jdbc:one", "jdbc:two"))
        .expectNext(new ConfigChange("db/url", "jdbc:two", null))
        .thenCancel()
        .verify(WAIT);
  }

  @Test
  void cancelling_removesTheListenerItAdded() {
    List<String> calls = new CopyOnWriteArrayList<>();
    List<Object> added = new CopyOnWriteArrayList<>();
    ConfigCenter recording = (ConfigCenter) Proxy.newProxyInstance(ConfigCenter.class.getClassLoader(),
        new Class<?>[] {ConfigCenter.class}, (proxy, method, args) -> {
          calls.add(method.getName());
          if (method.getName().equals("addPrefixListener")) {
            added.add(args[1]);
          } else if (method.getName().equals("removeListener")) {
            assertThat(args[0]).isSameAs(added.get(0));
          }
          return null;
        });

    Disposable subscription = ReactiveConfig.changes(recording, "db").subscribe();
    subscription.dispose();

    assertThat(calls).containsExactly("addPrefixListener", "removeListener");
  }
}
