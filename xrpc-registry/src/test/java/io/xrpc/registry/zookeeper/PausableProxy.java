package io.xrpc.registry.zookeeper;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP forwarder on 127.0.0.1 that can be cut: while paused it drops the connections it carries
 * and refuses new ones. Stands between one process and ZooKeeper, so that a test can keep that
 * process away from the ensemble while others reconnect.
 */
final class PausableProxy implements AutoCloseable {
    private final ServerSocket listener;
    private final String targetHost;
    private final int targetPort;
    private final List<Socket> open = new CopyOnWriteArrayList<>();
    private volatile boolean paused;
    private volatile boolean closed;

    PausableProxy(String targetHost, int targetPort) throws IOException {
        this.targetHost = targetHost;
        this.targetPort = targetPort;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(this::accept, "proxy-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    String address() {
        return "127.0.0.1:" + listener.getLocalPort();
    }

    synchronized void pause() {
        paused = true;
        for (Socket s : open) {
            closeQuietly(s);
        }
        open.clear();
    }

    synchronized void resume() {
        paused = false;
    }

    private void accept() {
        while (!closed) {
            try {
                Socket in = listener.accept();
                synchronized (this) { // no connection slips through while pause() runs
                    if (paused) {
                        closeQuietly(in);
                        continue;
                    }
                    Socket out;
                    try {
                        out = new Socket(targetHost, targetPort);
                    } catch (IOException e) {
                        closeQuietly(in);
                        continue;
                    }
                    open.add(in);
                    open.add(out);
                    pump(in, out);
                    pump(out, in);
                }
            } catch (IOException e) {
                // closed
            }
        }
    }

    private void pump(Socket from, Socket to) {
        Thread t = new Thread(
                () -> {
                    byte[] buf = new byte[8192];
                    try (InputStream in = from.getInputStream();
                            OutputStream out = to.getOutputStream()) {
                        for (int n; (n = in.read(buf)) >= 0; ) {
                            out.write(buf, 0, n);
                            out.flush();
                        }
                    } catch (IOException ignored) {
                        // one side went away
                    } finally {
                        closeQuietly(from);
                        closeQuietly(to);
                    }
                },
                "proxy-pump");
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    @Override
    public void close() throws IOException {
        closed = true;
        pause();
        listener.close();
    }
}
