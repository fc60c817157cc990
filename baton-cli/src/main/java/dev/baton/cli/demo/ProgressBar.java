package dev.baton.cli.demo;

import java.io.PrintWriter;
import java.util.LinkedList;
import java.util.Locale;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/**
 * A one-line progress bar redrawn in place with a carriage return, five times a second, on its
 * own daemon thread. {@link #close()} draws the final state and ends the line.
 */
public final class ProgressBar implements AutoCloseable {
  private static final int WIDTH = 40;
  private static final long PERIOD_MS = 200;
  private static final long WINDOW_NANOS = 1_000_000_000L;

  private final PrintWriter out;
  private final int total;
  private final IntSupplier done;
  private final LongSupplier events;
  private final String eventUnit;
  private final LinkedList<long[]> recent = new LinkedList<>(); // {nanos, events} of recent draws
  private final ScheduledExecutorService timer;
  private int lastLength;

  private ProgressBar(PrintWriter out, int total, IntSupplier done, LongSupplier events, String eventUnit) {
    this.out = out;
    this.total = total;
    this.done = done;
    this.events = events;
    this.eventUnit = eventUnit;
    this.timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
      Thread thread = new Thread(runnable, "baton-progress");
      thread.setDaemon(true);
      return thread;
    });
  }

  /**
   * Starts drawing {@code done} out of {@code total} sold, with the rate of {@code events} per
   * second labelled {@code eventUnit} (e.g. "locks/s").
   */
  static ProgressBar start(PrintWriter out, int total, IntSupplier done, LongSupplier events, String eventUnit) {
    ProgressBar bar = new ProgressBar(out, total, done, events, eventUnit);
    bar.timer.scheduleAtFixedRate(bar::draw, 0, PERIOD_MS, TimeUnit.MILLISECONDS);
    return bar;
  }

  /** The bar as text, e.g. {@code [#####.....]  1,234 / 2,000 sold  812 locks/s}. */
  static String render(int done, int total, double rate, String eventUnit) {
    int filled = (int) Math.min(WIDTH, (long) WIDTH * Math.max(0, done) / Math.max(1, total));
    return "[" + "#".repeat(filled) + ".".repeat(WIDTH - filled) + "]  "
        + String.format(Locale.US, "%,d / %,d sold  %,.0f %s", done, total, rate, eventUnit);
  }

  private synchronized void draw() {
    long now = System.nanoTime();
    long count = events.getAsLong();
    recent.addLast(new long[] {now, count});
    // The rate over about the last second: the current pace, not diluted by the start-up.
    while (recent.size() > 2 && now - recent.get(1)[0] >= WINDOW_NANOS) {
      recent.removeFirst();
    }
    long[] oldest = recent.getFirst();
    double seconds = (now - oldest[0]) / 1e9;
    double rate = seconds <= 0 ? 0 : (count - oldest[1]) / seconds;
    String line = render(done.getAsInt(), total, rate, eventUnit);
    // Blanks wipe what is left of a longer previous line.
    out.print("\r" + line + " ".repeat(Math.max(0, lastLength - line.length())));
    out.flush();
    lastLength = line.length();
  }

  @Override
  public void close() {
    timer.shutdownNow();
    try {
      timer.awaitTermination(1, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    draw();
    out.println();
    out.flush();
  }
}
