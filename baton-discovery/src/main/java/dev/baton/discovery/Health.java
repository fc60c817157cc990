package dev.baton.discovery;

import java.util.Objects;

/**
 * The result of one {@link HealthCheck}: up, or down with a reason that readers of the instance
 * see in its payload ({@code "healthDetail"}).
 *
 * @param isUp whether the instance can serve
 * @param detail why it is down, or a note; never null
 */
public record Health(boolean isUp, String detail) {
  private static final Health UP = new Health(true, "");

  public Health {
    Objects.requireNonNull(detail, "detail must not be null");
  }

  public static Health up() {
    return UP;
  }

  public static Health down(String detail) {
    return new Health(false, detail);
  }
}
