package dev.baton.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;

/**
 * Records JFR's {@code jdk.VirtualThreadPinned} events (a virtual thread that blocked while it
 * could not leave its carrier: inside a monitor on JDK 21-23, in a native frame or a class
 * initializer on any JDK) while a test runs, with no threshold, so every such block counts.
 *
 * <pre>{@code
 * PinnedThreads pinned = PinnedThreads.record();
 * ... // work on virtual threads
 * PinnedThreads.Report report = pinned.stop();
 * assertThat(report.pinsWithFrame(f -> f.startsWith("dev.baton."))).isEmpty();
 * }</pre>
 */
public final class PinnedThreads {
  /** The event's name; JDK 21+ records it, older JDKs know no such event and record nothing. */
  public static final String EVENT = "jdk.VirtualThreadPinned";

  private final Recording recording;

  private PinnedThreads(Recording recording) {
    this.recording = recording;
  }

  /** Starts recording. */
  public static PinnedThreads record() {
    Recording recording = new Recording();
    recording.enable(EVENT).withThreshold(Duration.ZERO).withStackTrace();
    recording.start();
    return new PinnedThreads(recording);
  }

  /** Stops recording and reads what was recorded. */
  public Report stop() {
    recording.stop();
    Path file = null;
    try {
      file = Files.createTempFile("baton-pinned", ".jfr");
      recording.dump(file);
      List<Pin> pins = new ArrayList<>();
      for (RecordedEvent event : RecordingFile.readAllEvents(file)) {
        if (event.getEventType().getName().equals(EVENT)) {
          List<String> frames = new ArrayList<>();
          if (event.getStackTrace() != null) {
            for (RecordedFrame frame : event.getStackTrace().getFrames()) {
              frames.add(frame.getMethod().getType().getName() + "." + frame.getMethod().getName()
                  + ":" + frame.getLineNumber());
            }
          }
          pins.add(new Pin(frames));
        }
      }
      return new Report(pins);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      recording.close();
      if (file != null) {
        try {
          Files.deleteIfExists(file);
        } catch (IOException e) {
          // a temporary file left behind is no reason to fail the test
        }
      }
    }
  }

  /**
   * One pinned block: its stack, top first, as {@code class.method:line} (a stack is cut at JFR's
   * default depth of 64 frames).
   */
  public record Pin(List<String> frames) {
    /** The frame on top: usually the JDK's own parking code. */
    public String topFrame() {
      return frames.isEmpty() ? "(no stack)" : frames.get(0);
    }

    /** The topmost frame that {@code which} accepts, if any. */
    public Optional<String> topFrame(Predicate<String> which) {
      return frames.stream().filter(which).findFirst();
    }
  }

  /** What was recorded. */
  public static final class Report {
    private final List<Pin> pins;

    Report(List<Pin> pins) {
      this.pins = List.copyOf(pins);
    }

    public List<Pin> pins() {
      return pins;
    }

    /** How many pinned blocks there were per top frame, most first. */
    public Map<String, Long> byTopFrame() {
      return count(pins.stream().map(Pin::topFrame).collect(Collectors.toList()));
    }

    /**
     * How many there were per topmost frame that {@code which} accepts (the library's own frame
     * nearest the block, say); blocks with none such count under {@code "(none)"}.
     */
    public Map<String, Long> byTopFrame(Predicate<String> which) {
      return count(pins.stream().map(p -> p.topFrame(which).orElse("(none)")).collect(Collectors.toList()));
    }

    /** The pinned blocks with a frame that {@code which} accepts anywhere on their stack. */
    public List<Pin> pinsWithFrame(Predicate<String> which) {
      return pins.stream().filter(p -> p.frames().stream().anyMatch(which)).collect(Collectors.toList());
    }

    private static Map<String, Long> count(List<String> frames) {
      Map<String, Long> counts = new TreeMap<>();
      frames.forEach(f -> counts.merge(f, 1L, Long::sum));
      return counts;
    }

    @Override
    public String toString() {
      return pins.size() + " pinned blocks; per top frame " + byTopFrame();
    }
  }
}
