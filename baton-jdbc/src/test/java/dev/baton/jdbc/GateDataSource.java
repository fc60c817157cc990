package dev.baton.jdbc;

import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A real data source behind a gate a test can shut: while shut, {@link #getConnection()} waits
 * (as a process frozen by a long GC pause, or a pool that cannot reach the database, would) until
 * the gate opens again. Counts the connections handed out.
 */
final class GateDataSource implements DataSource {
  private final DataSource target;
  private final AtomicLong handedOut = new AtomicLong();
  private boolean shut; // guarded by this

  GateDataSource(DataSource target) {
    this.target = target;
  }

  synchronized void shut() {
    shut = true;
  }

  synchronized void open() {
    shut = false;
    notifyAll();
  }

  long handedOut() {
    return handedOut.get();
  }

  private void pass() throws SQLException {
    synchronized (this) {
      while (shut) {
        try {
          wait();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new SQLException("interrupted at the gate", "08000");
        }
      }
    }
    handedOut.incrementAndGet();
  }

  @Override
  public Connection getConnection() throws SQLException {
    pass();
    return target.getConnection();
  }

  @Override
  public Connection getConnection(String user, String password) throws SQLException {
    pass();
    return target.getConnection(user, password);
  }

  @Override
  public PrintWriter getLogWriter() throws SQLException {
    return target.getLogWriter();
  }

  @Override
  public void setLogWriter(PrintWriter out) throws SQLException {
    target.setLogWriter(out);
  }

  @Override
  public void setLoginTimeout(int seconds) throws SQLException {
    target.setLoginTimeout(seconds);
  }

  @Override
  public int getLoginTimeout() throws SQLException {
    return target.getLoginTimeout();
  }

  @Override
  public Logger getParentLogger() throws SQLFeatureNotSupportedException {
    return target.getParentLogger();
  }

  @Override
  public <T> T unwrap(Class<T> iface) throws SQLException {
    return target.unwrap(iface);
  }

  @Override
  public boolean isWrapperFor(Class<?> iface) throws SQLException {
    return target.isWrapperFor(iface);
  }
}
