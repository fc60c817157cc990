package dev.baton.cli.command;

import java.util.concurrent.CountDownLatch;

/** Waits for Ctrl-C (or a test's release of the latch), for the commands that follow until stopped. */
public final class UntilStopped {
  private UntilStopped() {}

  /** Blocks until {@code stop} is released: by the JVM's shutdown (Ctrl-C), or by a test. */
  public static void await(CountDownLatch stop, String name) throws InterruptedException {
    Thread hook = new Thread(stop::countDown, name + "-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    stop.await();
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException shuttingDown) {
      // Ctrl-C: the hook released the latch.
    }
  }
}
