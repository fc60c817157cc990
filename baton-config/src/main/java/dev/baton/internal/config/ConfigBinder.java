package dev.baton.internal.config;

import dev.baton.config.ConfigBinding;
import dev.baton.config.ConfigCenter;
import dev.baton.config.ConfigListener;
import dev.baton.internal.cache.SerialListeners;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A record bound to the keys under a prefix: built from the config center's reads (so gray
 * candidates and typed parsing apply as for {@code get}), and built again on every change of a
 * key under the prefix, heard through a prefix listener on a direct executor (building reads the
 * local copy only, never blocks).
 */
final class ConfigBinder<T extends Record> implements ConfigBinding<T> {
  private static final Logger log = LoggerFactory.getLogger(ConfigBinder.class);

  private final ConfigCenter config;
  private final String keyPrefix;
  private final Class<T> type;
  private final Constructor<T> constructor;
  private final RecordComponent[] components;
  private final SerialListeners<Consumer<T>, T> listeners = new SerialListeners<>(Consumer::accept);
  private final ConfigListener onChange = (key, oldValue, newValue) -> changed();
  /** Changes heard under the prefix: the first build is repeated if one came while it ran. */
  private final AtomicLong changes = new AtomicLong();
  private volatile T current;
  // Guarded by this: whether start has set the first record (changes rebuild only after it).
  private boolean started;

  ConfigBinder(ConfigCenter config, String keyPrefix, Class<T> type) {
    this.config = config;
    this.keyPrefix = keyPrefix;
    this.type = type;
    this.components = type.getRecordComponents();
    Class<?>[] types = new Class<?>[components.length];
    for (int i = 0; i < components.length; i++) {
      types[i] = components[i].getType();
      checkSupported(components[i]);
    }
    try {
      this.constructor = type.getDeclaredConstructor(types);
      constructor.setAccessible(true);
    } catch (NoSuchMethodException | RuntimeException e) {
      throw new IllegalArgumentException("Cannot bind " + type.getName() + ": its canonical constructor is not"
          + " accessible (" + e + ")", e);
    }
  }

  /**
   * Starts following, then builds the record (failing clearly if the keys do not fit). Listening
   * first, so that no change is missed: one heard while the record was built (it may or may not
   * be in it) makes it built again. Never blocks the thread that delivers changes.
   */
  ConfigBinder<T> start() {
    config.addPrefixListener(keyPrefix, onChange, Runnable::run);
    try {
      while (true) {
        long seen = changes.get();
        T first = build();
        synchronized (this) {
          if (changes.get() == seen) {
            current = first;
            started = true;
            return this;
          }
        }
      }
    } catch (RuntimeException e) {
      config.removeListener(onChange);
      throw e;
    }
  }

  private void changed() {
    changes.incrementAndGet();
    synchronized (this) {
      if (started) {
        rebuild();
      }
    }
  }

  @Override
  public T get() {
    return current;
  }

  @Override
  public void addListener(Consumer<T> listener, Executor executor) {
    java.util.Objects.requireNonNull(listener, "listener must not be null");
    java.util.Objects.requireNonNull(executor, "executor must not be null");
    listeners.add(listener, executor);
  }

  @Override
  public void close() {
    config.removeListener(onChange);
    listeners.clear();
  }

  /** Call under this lock. */
  private void rebuild() {
    T next;
    try {
      next = build();
    } catch (RuntimeException e) {
      log.error("The keys under {} no longer make a {}; keeping the last one: {}", keyPrefix, type.getSimpleName(),
          e.getMessage());
      return;
    }
    if (!next.equals(current)) {
      current = next;
      listeners.deliver(List.of(next));
    }
  }

  private T build() {
    Object[] args = new Object[components.length];
    for (int i = 0; i < components.length; i++) {
      args[i] = read(components[i]);
    }
    try {
      return constructor.newInstance(args);
    } catch (InvocationTargetException e) {
      throw e.getCause() instanceof RuntimeException runtime ? runtime
          : new IllegalStateException("Building " + type.getName() + " failed", e.getCause());
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("Building " + type.getName() + " failed", e);
    }
  }

  /** The key of a component: its name, else its name in kebab case, whichever is present. */
  private String keyOf(RecordComponent component) {
    String plain = keyPrefix + "/" + component.getName();
    if (config.get(plain).isPresent()) {
      return plain;
    }
    return keyPrefix + "/" + component.getName().replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
  }

  private Object read(RecordComponent component) {
    String key = keyOf(component);
    Class<?> raw = component.getType();
    if (raw == Optional.class) {
      return config.get(key).isEmpty() ? Optional.empty() : Optional.of(scalar(key, optionalOf(component)));
    }
    if (config.get(key).isEmpty()) {
      throw new IllegalStateException("config key '" + key + "' for the component " + component.getName() + " of "
          + type.getSimpleName() + " is absent; set it, or make the component Optional");
    }
    if (raw == List.class) {
      return config.getList(key, List.of());
    }
    if (raw == Map.class) {
      return config.getMap(key, Map.of());
    }
    return scalar(key, raw);
  }

  private Object scalar(String key, Class<?> type) {
    if (type == String.class) {
      return config.get(key).orElseThrow();
    } else if (type == int.class || type == Integer.class) {
      return config.getInt(key, 0);
    } else if (type == long.class || type == Long.class) {
      return config.getLong(key, 0);
    } else if (type == boolean.class || type == Boolean.class) {
      return config.getBoolean(key, false);
    } else if (type == double.class || type == Double.class) {
      String value = config.get(key).orElseThrow().strip();
      try {
        return Double.parseDouble(value);
      } catch (NumberFormatException e) {
        throw new dev.baton.config.ConfigValueException(key, value, "double", "config key '" + key + "' holds '"
            + value + "', which is not a valid double", e);
      }
    } else if (type == Duration.class) {
      return config.getDuration(key, Duration.ZERO);
    }
    throw new IllegalArgumentException("unsupported type " + type.getName() + " at config key '" + key + "'");
  }

  private static final List<Class<?>> SCALARS = List.of(String.class, int.class, Integer.class, long.class, Long.class,
      boolean.class, Boolean.class, double.class, Double.class, Duration.class);

  private void checkSupported(RecordComponent component) {
    Class<?> raw = component.getType();
    boolean ok = SCALARS.contains(raw)
        || (raw == List.class && typeArguments(component).equals(List.of(String.class)))
        || (raw == Map.class && typeArguments(component).equals(List.of(String.class, String.class)))
        || (raw == Optional.class && SCALARS.contains(optionalOf(component)));
    if (!ok) {
      throw new IllegalArgumentException("Cannot bind the component " + component.getName() + " of " + type.getName()
          + ": its type " + component.getGenericType().getTypeName() + " is not one of String, int, long, boolean,"
          + " double, Duration, List<String>, Map<String, String> or Optional of a scalar");
    }
  }

  private static List<Type> typeArguments(RecordComponent component) {
    return component.getGenericType() instanceof ParameterizedType p ? List.of(p.getActualTypeArguments()) : List.of();
  }

  private static Class<?> optionalOf(RecordComponent component) {
    List<Type> args = typeArguments(component);
    return args.size() == 1 && args.get(0) instanceof Class<?> c ? c : Object.class;
  }
}
