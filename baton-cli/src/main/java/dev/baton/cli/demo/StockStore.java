package dev.baton.cli.demo;

import java.nio.charset.StandardCharsets;

/**
 * The demo's shared resource: a stock count kept where the lock service keeps its data (a
 * ZooKeeper node, a Redis key, or a PostgreSQL row), read and written as an application would talk to its
 * database. The stored text is {@code "count"} or {@code "count,fence"}: the fence is the highest
 * fencing token a write has stored, and a fenced write with an older token is refused, as a
 * database does with {@code UPDATE ... WHERE fence <= ?}.
 */
public interface StockStore extends AutoCloseable {

  /**
   * One reading of the stock.
   *
   * @param count items left
   * @param fence the highest fencing token a write has stored, 0 if none
   * @param version the store's version of the value, where it keeps one (ZooKeeper's node
   *     version), else 0; a fenced write may use it to skip a read
   */
  record Stock(int count, long fence, int version) {
    static Stock parse(byte[] data, int version) {
      return parse(new String(data, StandardCharsets.US_ASCII), version);
    }

    static Stock parse(String text, int version) {
      String[] parts = text.trim().split(",", 2);
      long fence = parts.length == 2 ? Long.parseLong(parts[1]) : 0;
      return new Stock(Integer.parseInt(parts[0]), fence, version);
    }

    static String text(int count, long fence) {
      return count + "," + fence;
    }
  }

  /** Creates the stock at {@code path} holding {@code count}. */
  void create(String path, int count);

  /** The stock as the server last committed it. */
  Stock readStock(String path);

  /** The count alone; see {@link #readStock}. */
  default int read(String path) {
    return readStock(path).count();
  }

  /** Overwrites the count whatever it is now: deliberately no check of any kind. */
  void write(String path, int count);

  /**
   * Writes {@code count} with {@code token} as the new fence, unless the stock already holds a
   * higher fence: then nothing is written and the answer is false. {@code seen} is the writer's
   * own earlier read.
   */
  boolean writeFenced(String path, int count, long token, Stock seen);

  /** Removes everything of one run below {@code root}; best effort. */
  void deleteTree(String root);

  @Override
  void close();
}
