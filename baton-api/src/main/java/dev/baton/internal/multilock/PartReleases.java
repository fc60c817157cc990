package dev.baton.internal.multilock;

import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Releases several held parts so that one failing release cannot keep the others held: each is
 * released, last taken first, and the failures are gathered into the first one (the rest
 * {@linkplain Throwable#addSuppressed suppressed}) for the caller to report.
 */
public final class PartReleases {
  private PartReleases() {}

  /** Releases every part, last first; the first failure, carrying the later ones, if any failed. */
  public static <P> Optional<RuntimeException> releaseAll(List<P> parts, Consumer<? super P> release) {
    RuntimeException failure = null;
    for (int i = parts.size() - 1; i >= 0; i--) {
      try {
        release.accept(parts.get(i));
      } catch (RuntimeException e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    return Optional.ofNullable(failure);
  }
}
