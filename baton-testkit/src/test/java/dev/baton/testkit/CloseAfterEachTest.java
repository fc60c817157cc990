package dev.baton.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CloseAfterEachTest {

  @Test
  void afterEach_threeResources_closedLastFirstAndEmptiedOut() throws Exception {
    CloseAfterEach resources = new CloseAfterEach();
    List<String> closed = new ArrayList<>();
    resources.closing(() -> closed.add("server"));
    resources.closing(() -> closed.add("proxy"));
    resources.closing(() -> closed.add("client"));

    resources.afterEach(null);
    resources.afterEach(null);

    assertThat(closed).containsExactly("client", "proxy", "server");
  }

  @Test
  void afterEach_twoFailToClose_allTriedAndFirstThrownWithTheOtherSuppressed() {
    CloseAfterEach resources = new CloseAfterEach();
    List<String> closed = new ArrayList<>();
    resources.closing(() -> closed.add("first registered"));
    resources.closing(() -> {
      throw new IOException("second");
    });
    resources.closing(() -> {
      throw new IOException("third");
    });

    assertThatThrownBy(() -> resources.afterEach(null)).hasMessage("third")
        .satisfies(e -> assertThat(e.getSuppressed()).extracting(Throwable::getMessage).containsExactly("second"));
    assertThat(closed).containsExactly("first registered");
  }
}
