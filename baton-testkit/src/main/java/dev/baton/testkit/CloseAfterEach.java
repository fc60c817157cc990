package dev.baton.testkit;

import java.util.ArrayDeque;
import java.util.Deque;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Closes what a test registered with {@link #closing}, after the test, last registered first (a
 * client before the proxy under it), even when the test failed. The first failure to close is
 * thrown with the others suppressed.
 *
 * <pre>{@code
 * @RegisterExtension final CloseAfterEach resources = new CloseAfterEach();
 * Baton baton = resources.closing(Baton.connect(...));
 * }</pre>
 */
public class CloseAfterEach implements AfterEachCallback {
  private final Deque<AutoCloseable> resources = new ArrayDeque<>();

  /** Registers {@code resource} to be closed after the current test, and returns it. */
  public synchronized <T extends AutoCloseable> T closing(T resource) {
    resources.push(resource);
    return resource;
  }

  @Override
  public void afterEach(ExtensionContext context) throws Exception {
    Exception failure = null;
    AutoCloseable next;
    while ((next = poll()) != null) {
      try {
        next.close();
      } catch (Exception e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  private synchronized AutoCloseable poll() {
    return resources.poll();
  }
}
