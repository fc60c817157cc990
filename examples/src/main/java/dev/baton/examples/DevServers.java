package dev.baton.examples;

import dev.baton.embedded.EmbeddedRedis;
import dev.baton.embedded.EmbeddedZooKeeper;
import java.util.function.Consumer;

/**
 * How every example's {@code main} finds its server: the first argument ({@code host:port} of an
 * ensemble, or a {@code redis://} URI), else one started in this process for the run.
 */
final class DevServers {
  private DevServers() {}

  static void withZooKeeper(String[] args, Consumer<String> example) {
    if (args.length > 0) {
      example.accept(args[0]);
      return;
    }
    try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.start()) {
      example.accept(zk.connectString());
    }
  }

  static void withRedis(String[] args, Consumer<String> example) {
    if (args.length > 0) {
      example.accept(args[0]);
      return;
    }
    try (EmbeddedRedis redis = EmbeddedRedis.start()) {
      example.accept(redis.uri());
    }
  }
}
