package dev.baton.cli.command;

import dev.baton.Baton;
import dev.baton.redis.RedisBaton;
import dev.baton.redis.RedisMutexOptions;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/**
 * Where a recipe command works: ZooKeeper ({@code --connect}, the default), Redis ({@code
 * --redis}) or a SQL database ({@code --jdbc}), at most one of them. The one place that chooses,
 * so that every command offers the same stores with the same options and errors.
 */
public final class StoreOptions {
  @Mixin ConnectOptions zooKeeper;
  @Mixin RedisConnectOptions redis;
  @Mixin JdbcConnectOptions jdbc;

  /** The stores there are. */
  enum Kind { ZOOKEEPER, REDIS, JDBC }

  /**
   * The store asked for; giving two of {@code --connect}, {@code --redis} and {@code --jdbc} is a
   * usage error naming them. ({@code BATON_CONNECT} and the config file only choose ZooKeeper's
   * address: they do not count against {@code --redis} or {@code --jdbc}.)
   */
  Kind kind(CommandSpec spec) {
    List<String> given = new ArrayList<>();
    if (spec.commandLine().getParseResult() != null && spec.commandLine().getParseResult().hasMatchedOption("--connect")) {
      given.add("--connect");
    }
    if (redis.given()) {
      given.add("--redis");
    }
    if (jdbc.given()) {
      given.add("--jdbc");
    }
    if (given.size() > 1) {
      throw new ParameterException(spec.commandLine(), String.join(" and ", given)
          + " cannot be combined: the recipe is on one store only");
    }
    return redis.given() ? Kind.REDIS : jdbc.given() ? Kind.JDBC : Kind.ZOOKEEPER;
  }

  /**
   * Connects to the store asked for. On ZooKeeper {@code name} must be a recipe path (checked
   * before anything is sent, {@code what} naming it in the error); elsewhere the backend checks it
   * when the recipe is made.
   *
   * @param holds whether the command holds something for as long as it runs (a lock, a
   *     leadership): ZooKeeper then says the session timeout it granted, SQL creates its lock table
   */
  Store open(CommandSpec spec, String name, String what, boolean holds) {
    Kind kind = kind(spec);
    switch (kind) {
      case REDIS -> {
        RedisMutexOptions layout = redis.mutexOptions(spec); // a bad layout is bad usage, before connecting
        RedisBaton client = redis.open(zooKeeper.connectTimeout, spec);
        return new Store(spec, client, layout, zooKeeper.connectTimeout);
      }
      case JDBC -> {
        return new Store(spec, jdbc.open(zooKeeper.connectTimeout, holds, spec), null, zooKeeper.connectTimeout);
      }
      default -> {
        if (name != null) {
          LockCommand.checkPath(name, "<path>", what, spec);
        }
        zooKeeper.holds = holds;
        Baton baton = zooKeeper.open(spec);
        return new Store(spec, baton, null, zooKeeper.connectTimeout);
      }
    }
  }
}
