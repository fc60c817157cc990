package dev.baton;

import java.util.Objects;

/**
 * Turns values into the bytes a znode holds and back. Implementations must be thread-safe, and
 * {@code decode(encode(v))} must give back a value equal to {@code v}. Either method may throw an
 * unchecked exception for a value or bytes it cannot handle; Baton reports it naming the path.
 *
 * <pre>{@code
 * DistributedQueue<String> names = baton.queue("/queues/names", Codec.utf8());
 * DistributedQueue<Order> orders = baton.queue("/queues/orders", Codec.json(Order.class));
 * }</pre>
 *
 * @param <T> the type of the values
 */
public interface Codec<T> {

  /** The bytes for {@code value}; never called with {@code null}. Must not return {@code null}. */
  byte[] encode(T value);

  /** The value for {@code data}, as {@link #encode} wrote it. */
  T decode(byte[] data);

  /** Text as UTF-8 bytes; bytes that are not valid UTF-8 decode with replacement characters. */
  static Codec<String> utf8() {
    return dev.baton.Codecs.UTF8;
  }

  /** The bytes themselves, copied both ways so that neither side can change the other's array. */
  static Codec<byte[]> bytes() {
    return dev.baton.Codecs.BYTES;
  }

  /**
   * JSON through Jackson's default {@code ObjectMapper} settings: public fields, getters and
   * setters, or records. Encoding a value Jackson cannot write fails with {@link
   * IllegalArgumentException}; decoding bytes that are not JSON of {@code type} fails with a {@link
   * BatonException} naming the type.
   *
   * @throws NullPointerException if {@code type} is null
   */
  static <T> Codec<T> json(Class<T> type) {
    return dev.baton.Codecs.json(Objects.requireNonNull(type, "type must not be null"));
  }
}
