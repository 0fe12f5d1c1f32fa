package io.xrpc.spring;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Keeps what the XRpc client logs (logback-test.xml attaches it), for tests that check the log
 * lines operators rely on. Declared in the configuration rather than added by a test, because
 * every Spring Boot context that starts reconfigures Logback and drops appenders added by hand.
 */
public class RecordingAppender extends AppenderBase<ILoggingEvent> {
    private static final List<ILoggingEvent> EVENTS = new CopyOnWriteArrayList<>();

    @Override
    protected void append(ILoggingEvent event) {
        if (EVENTS.size() < 10_000) {
            EVENTS.add(event);
        }
    }

    static void clear() {
        EVENTS.clear();
    }

    /** The messages logged at {@code level} that contain {@code part}. */
    static List<String> messages(Level level, String part) {
        return EVENTS.stream()
                .filter(e -> e.getLevel() == level)
                .map(ILoggingEvent::getFormattedMessage)
                .filter(m -> m.contains(part))
                .toList();
    }
}
