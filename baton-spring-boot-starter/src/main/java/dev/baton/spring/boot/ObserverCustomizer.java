package dev.baton.spring.boot;

import dev.baton.Baton;
import dev.baton.BatonObserver;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * A {@link BatonBuilderCustomizer} that only adds an observer, so it can also be applied to the
 * client {@code spring.config.import=baton:} built before the context ({@link ConfigDataClient}):
 * the one kind of customization that lets that client become the {@code Baton} bean.
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

  /** Points the imported client's forwarding observer at this customizer's observer. */
  void customize(ConfigDataClient client) {
    observer.get().ifPresent(client::observe);
  }
}
