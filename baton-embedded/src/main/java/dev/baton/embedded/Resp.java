package dev.baton.embedded;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;

/**
 * Just enough of the Redis protocol to set up servers (this module does not depend on a client):
 * one command per connection, replies as text.
 */
final class Resp {
  private Resp() {}

  /** Sends one command in the protocol's array form and returns the reply as text (errors too). */
  static String send(EmbeddedRedis node, String... command) {
    try (Socket socket = new Socket(node.host(), node.port())) {
      socket.setSoTimeout((int) TimeUnit.SECONDS.toMillis(30));
      StringBuilder request = new StringBuilder("*").append(command.length).append("\r\n");
      for (String part : command) {
        request.append('$').append(part.getBytes(StandardCharsets.UTF_8).length).append("\r\n").append(part).append("\r\n");
      }
      OutputStream out = socket.getOutputStream();
      out.write(request.toString().getBytes(StandardCharsets.UTF_8));
      out.flush();
      return readReply(new BufferedInputStream(socket.getInputStream()));
    } catch (IOException e) {
      throw new UncheckedIOException("Could not send " + command[0] + " to redis-server " + node.host() + ":" + node.port(), e);
    }
  }

  private static String readReply(InputStream in) throws IOException {
    String line = readLine(in);
    if (line.isEmpty()) {
      throw new IOException("redis-server closed the connection without a reply");
    }
    char type = line.charAt(0);
    String rest = line.substring(1);
    if (type != '$') {
      return rest; // +simple, -error, :integer
    }
    int length = Integer.parseInt(rest);
    if (length < 0) {
      return "";
    }
    byte[] body = in.readNBytes(length + 2);
    return new String(body, 0, length, StandardCharsets.UTF_8);
  }

  static String readLine(InputStream in) throws IOException {
    StringBuilder line = new StringBuilder();
    int c;
    while ((c = in.read()) != -1 && c != '\n') {
      if (c != '\r') {
        line.append((char) c);
      }
    }
    return line.toString();
  }
}
