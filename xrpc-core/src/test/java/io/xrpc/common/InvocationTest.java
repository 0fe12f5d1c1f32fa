package io.xrpc.common;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class InvocationTest {

    @Test
    void aListenerThatThrowsDoesNotKeepTheOthersFromHearingTheAnswer() throws Exception {
        Invocation inv = new Invocation(
                ServiceKey.of(Runnable.class, "", ""),
                MethodDescriptor.of(Runnable.class.getMethod("run")),
                null,
                null,
                null,
                System.nanoTime());
        List<String> heard = new CopyOnWriteArrayList<>();
        inv.whenAnswered(s -> heard.add("first " + s));
        inv.whenAnswered(s -> {
            throw new IllegalStateException("a broken listener");
        });
        inv.whenAnswered(s -> heard.add("third " + s)); // an observation that must still stop
        assertThatThrownBy(() -> inv.answered(RpcStatus.OK)).hasMessage("a broken listener");
        assertThat(heard).containsExactly("first OK", "third OK");
    }
}
