package dev.baton.cli.command;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * Reads durations as people type them: {@code 500ms}, {@code 10s}, {@code 2m}, {@code 1h}, or ISO
 * {@code PT10S}. Negative ones are refused: no option of baton means anything by them.
 */
public final class DurationConverter implements ITypeConverter<Duration> {
  private static final Pattern SHORT = Pattern.compile("(\\d{1,9})(ms|s|m|h)");

  @Override
  public Duration convert(String value) {
    String text = value.trim().toLowerCase(java.util.Locale.ROOT);
    Matcher m = SHORT.matcher(text);
    if (m.matches()) {
      long amount = Long.parseLong(m.group(1));
      return switch (m.group(2)) {
        case "ms" -> Duration.ofMillis(amount);
        case "s" -> Duration.ofSeconds(amount);
        case "m" -> Duration.ofMinutes(amount);
        default -> Duration.ofHours(amount);
      };
    }
    Duration parsed;
    try {
      parsed = Duration.parse(value.trim());
    } catch (DateTimeParseException e) {
      throw new TypeConversionException(
          "'" + value + "' is not a duration; write e.g. 500ms, 10s, 2m or 1h");
    }
    if (parsed.isNegative()) {
      throw new TypeConversionException("'" + value + "' is negative; a duration must be 0 or more");
    }
    return parsed;
  }

  /** {@code 2 s}, {@code 0.5 s}: a duration as a person would say it. */
  public static String seconds(Duration duration) {
    return BigDecimal.valueOf(duration.toMillis(), 3).stripTrailingZeros().toPlainString() + " s";
  }
}
