package dev.baton;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.BatonException;
import dev.baton.Codec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/** The codecs {@link Codec} offers ready-made. */
public final class Codecs {
  // Thread-safe once configured; shared by every JSON codec.
  private static final ObjectMapper JSON = new ObjectMapper();

  public static final Codec<String> UTF8 = new Codec<>() {
    @Override
    public byte[] encode(String value) {
      return value.getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public String decode(byte[] data) {
      return new String(data, StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
      return "Codec.utf8()";
    }
  };

  public static final Codec<byte[]> BYTES = new Codec<>() {
    @Override
    public byte[] encode(byte[] value) {
      return value.clone();
    }

    @Override
    public byte[] decode(byte[] data) {
      return data.clone();
    }

    @Override
    public String toString() {
      return "Codec.bytes()";
    }
  };

  private Codecs() {}

  public static <T> Codec<T> json(Class<T> type) {
    return new Codec<>() {
      @Override
      public byte[] encode(T value) {
        try {
          return JSON.writeValueAsBytes(value);
        } catch (JsonProcessingException e) {
          throw new IllegalArgumentException("Cannot write " + value.getClass().getName()
              + " as JSON: " + e.getOriginalMessage(), e);
        }
      }

      @Override
      public T decode(byte[] data) {
        try {
          return JSON.readValue(data, type);
        } catch (IOException e) {
          throw new BatonException("Cannot read the bytes as JSON of " + type.getName() + ": "
              + (e instanceof JsonProcessingException json ? json.getOriginalMessage() : e.getMessage()), e);
        }
      }

      @Override
      public String toString() {
        return "Codec.json(" + type.getName() + ")";
      }
    };
  }
}
