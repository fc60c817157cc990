package dev.baton.spring.boot;

import dev.baton.Baton;
import dev.baton.BatonObserver;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * A {@link BatonBuilderCustomizer} that only adds an observer, so it can also be applied to the
 * client {@code spring.config.import=baton:} built before the context ({@link ConfigDataClient}):
 * the one kind of customization that lets that client become the {@code Baton} bean. The
 * auto-configurations combine all of them ({@link #combined}), since a builder keeps one observer:
 * metrics and tracing together.
 */
final class ObserverCustomizer implements BatonBuilderCustomizer {
  private final Supplier<Optional<BatonObserver>> observer;

  ObserverCustomizer(Supplier<Optional<BatonObserver>> observer) {
    this.observer = observer;
  }

  @Override
  public void customize(Baton.Builder builder) {
    observer.get().ifPresent(builder::observer);
  }

  /**
   * The observers of {@code customizers} (the others are skipped) as one, or none if none of
   * them has an observer now (no meter registry, no OpenTelemetry).
   */
  static Optional<BatonObserver> combined(List<?> customizers) {
    List<BatonObserver> observers = customizers.stream()
        .filter(ObserverCustomizer.class::isInstance)
        .flatMap(c -> ((ObserverCustomizer) c).observer.get().stream())
        .toList();
    return observers.isEmpty() ? Optional.empty() : Optional.of(CompositeObserver.of(observers));
  }
}
