package dev.baton.testkit;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * Virtual threads for tests that run on JDK 21+, reached by reflection: Baton and this testkit are
 * compiled for Java 17, where {@code Thread.ofVirtual()} does not exist. Guard the test with
 * {@code @EnabledForJreRange(min = JRE.JAVA_21)}; on an older JDK {@link #factory()} throws.
 */
public final class VirtualThreads {
  private VirtualThreads() {}

  /** Whether the running JDK has virtual threads. */
  public static boolean available() {
    try {
      Thread.class.getMethod("ofVirtual");
      return true;
    } catch (NoSuchMethodException e) {
      return false;
    }
  }

  /** A factory of unstarted virtual threads, as {@code Thread.ofVirtual().factory()}. */
  public static ThreadFactory factory() {
    try {
      Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
      Method factory = Class.forName("java.lang.Thread$Builder").getMethod("factory");
      return (ThreadFactory) factory.invoke(builder);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("This JDK (" + Runtime.version() + ") has no virtual threads;"
          + " run the test on JDK 21 or newer", e);
    }
  }

  /**
   * Runs {@code task} on {@code count} virtual threads at once, the {@code i}-th running {@code
   * task.run(i)}, and waits up to {@code wait} for all of them.
   *
   * @return what the threads threw, empty if none did
   * @throws AssertionError if some thread was still running after {@code wait}
   */
  public static List<Throwable> runAll(int count, Duration wait, IndexedTask task) throws InterruptedException {
    ThreadFactory factory = factory();
    Queue<Throwable> errors = new ConcurrentLinkedQueue<>();
    CountDownLatch done = new CountDownLatch(count);
    for (int i = 0; i < count; i++) {
      int index = i;
      factory.newThread(() -> {
        try {
          task.run(index);
        } catch (Throwable e) {
          errors.add(e);
        } finally {
          done.countDown();
        }
      }).start();
    }
    if (!done.await(wait.toNanos(), TimeUnit.NANOSECONDS)) {
      throw new AssertionError(done.getCount() + " of " + count + " virtual threads still running after " + wait);
    }
    return new ArrayList<>(errors);
  }

  /** What one of {@link #runAll}'s threads runs. */
  @FunctionalInterface
  public interface IndexedTask {
    void run(int index) throws Exception;
  }
}
