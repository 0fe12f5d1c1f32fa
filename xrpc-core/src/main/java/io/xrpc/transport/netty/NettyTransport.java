package io.xrpc.transport.netty;

import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.FastThreadLocalThread;
import java.util.concurrent.ThreadFactory;

/** Event loops and channel types: native epoll where Netty can load it, NIO otherwise. */
public final class NettyTransport {
    private static final boolean EPOLL = Epoll.isAvailable() && !Boolean.getBoolean("xrpc.transport.nio");

    private NettyTransport() {}

    /** True when the native epoll transport is in use. */
    public static boolean isNative() {
        return EPOLL;
    }

    public static EventLoopGroup newEventLoopGroup(int threads, String name, boolean daemon) {
        IoHandlerFactory io = EPOLL ? EpollIoHandler.newFactory() : NioIoHandler.newFactory();
        return new MultiThreadIoEventLoopGroup(threads, new IoThreadFactory(name, daemon), io);
    }

    public static Class<? extends ServerChannel> serverChannelType() {
        return EPOLL ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
    }

    public static Class<? extends Channel> channelType() {
        return EPOLL ? EpollSocketChannel.class : NioSocketChannel.class;
    }

    /**
     * Threads for a server's calls: daemon, and Netty's own kind, so that encoding an answer on
     * them uses the allocator's per-thread caches as the event loops do.
     */
    public static ThreadFactory callThreadFactory(String name) {
        return new DefaultThreadFactory(name, true);
    }

    /** True on an XRpc event-loop thread, where blocking for a response would deadlock. */
    public static boolean isIoThread() {
        return Thread.currentThread() instanceof IoThread;
    }

    static final class IoThread extends FastThreadLocalThread {
        IoThread(ThreadGroup group, Runnable r, String name) {
            super(group, r, name);
        }
    }

    private static final class IoThreadFactory extends DefaultThreadFactory {
        IoThreadFactory(String name, boolean daemon) {
            super(name, daemon);
        }

        @Override
        protected Thread newThread(Runnable r, String name) {
            return new IoThread(threadGroup, r, name);
        }
    }
}
