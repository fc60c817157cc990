package dev.baton.examples;

import dev.baton.Baton;
import dev.baton.config.ConfigCenter;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Scenario 3, the config center: an application reads a feature flag from its local copy (no
 * request per read) and hears at once when an operator, on another client, turns it on.
 *
 * <p>Run: {@code java dev.baton.examples.ConfigCenterExample [host:port]}.
 */
public final class ConfigCenterExample {
  /** The flag before the change, and as the application heard it and then read it. */
  public record Result(String before, String heard, String after) {}

  public static void main(String[] args) {
    DevServers.withZooKeeper(args, zk -> System.out.println(run(zk)));
  }

  public static Result run(String connectString) {
    try (Baton app = Baton.connect(connectString); Baton operator = Baton.connect(connectString);
         ConfigCenter appConfig = ConfigCenter.open(app, "/config/shop");
         ConfigCenter adminConfig = ConfigCenter.open(operator, "/config/shop")) {
      String before = appConfig.get("feature/checkout-v2", "off");
      CompletableFuture<String> heard = new CompletableFuture<>();
      appConfig.addListener((key, oldValue, newValue) -> {
        if (key.equals("feature/checkout-v2")) {
          heard.complete(newValue);
        }
      });
      adminConfig.set("feature/checkout-v2", "on");
      String seen = heard.get(30, TimeUnit.SECONDS);
      return new Result(before, seen, appConfig.get("feature/checkout-v2", "off"));
    } catch (Exception e) {
      throw new IllegalStateException("the config example failed", e);
    }
  }

  private ConfigCenterExample() {}
}
