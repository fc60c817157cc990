package dev.baton.cli.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.ConnectionState;
import dev.baton.ConnectionStateListener;
import dev.baton.Coordinator;
import dev.baton.lock.Mutex;
import java.time.Duration;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** What {@link Store} makes of a backend's refusals: a one-line failure, or a usage error naming {@code <path>}. */
class StoreTest {
  /** A backend with nothing but the methods every one must have; the rest refuse as Coordinator's defaults do. */
  private static final class Bare implements Coordinator {
    @Override
    public String backend() {
      return "bare";
    }

    @Override
    public Mutex mutex(String name) {
      throw new IllegalArgumentException("A lock name must not be '" + name + "'");
    }

    @Override
    public ConnectionState connectionState() {
      return ConnectionState.CONNECTED;
    }

    @Override
    public void addConnectionStateListener(ConnectionStateListener listener) {}

    @Override
    public void addConnectionStateListener(ConnectionStateListener listener, Executor executor) {}

    @Override
    public void removeConnectionStateListener(ConnectionStateListener listener) {}

    @Override
    public void close() {}
  }

  private final Store store = new Store(new CommandLine(new LeaderCommand()).getCommandSpec(), new Bare(), null,
      Duration.ofSeconds(1));

  @Test
  void aRecipeTheBackendLacks_isAFailureNamingBackendAndRecipe_inOneLine() {
    assertThatThrownBy(() -> store.readWriteLock("catalog")).isInstanceOf(CliException.class)
        .hasMessageContainingAll("bare backend", "read-write lock").message().doesNotContain("\n");
    assertThatThrownBy(() -> store.semaphore("pool", 2)).isInstanceOf(CliException.class)
        .hasMessageContainingAll("bare backend", "semaphore");
    assertThatThrownBy(() -> store.leaderLatch("reports", "me")).isInstanceOf(CliException.class)
        .hasMessageContainingAll("bare backend", "leader latch");
  }

  @Test
  void aNameTheBackendRefuses_isBadUsageNamingThePath() {
    assertThatThrownBy(() -> store.mutex("bad")).isInstanceOf(CommandLine.ParameterException.class)
        .hasMessage("<path>: A lock name must not be 'bad'");
    assertThat(store.backend()).isEqualTo("bare");
  }
}
