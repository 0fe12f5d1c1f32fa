package io.xrpc.benchmark.peers;

import io.xrpc.benchmark.jmh.Codec;
import io.xrpc.benchmark.model.Page;
import io.xrpc.benchmark.model.Response;
import io.xrpc.benchmark.model.User;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import org.apache.fory.Fory;
import org.apache.fory.config.Language;
import org.apache.fory.io.ForyInputStream;

/**
 * Apache Fory called directly, as a JMH baseline only ({@code -p serializer=fory -p api=raw}): what
 * a fourth serializer would buy on these payloads. XRpc has no Fory serializer, because Fory
 * allocates from the counts a payload claims (docs/BENCHMARKS.md); this codec never reads a peer's
 * bytes. Classes registered up front, as Fory recommends for speed and safety; one instance per
 * JMH thread.
 */
public final class ForyCodec implements Codec {
    // Guava's types left out: the jar's Guava (33, from the other peers) lacks classes Fory 0.13.2 names.
    private final Fory fory = Fory.builder().withLanguage(Language.JAVA).requireClassRegistration(true)
            .withRefTracking(false).registerGuavaTypes(false).build();

    public ForyCodec() {
        fory.register(Response.class);
        fory.register(User.class);
        fory.register(Page.class);
        fory.register(ArrayList.class);
    }

    @Override
    public void write(Object value, OutputStream out) {
        fory.serialize(out, value);
    }

    @Override
    public Object read(InputStream in, Class<?> type) {
        return fory.deserialize(new ForyInputStream(in));
    }
}
