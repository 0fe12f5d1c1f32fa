package io.xrpc.benchmark;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufOutputStream;
import io.netty.buffer.Unpooled;
import io.xrpc.benchmark.jmh.Codec;
import io.xrpc.benchmark.model.Payloads;
import io.xrpc.compress.Compressor;
import io.xrpc.compress.CompressorRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Prints, and saves as Markdown, the serialized size in bytes of every payload through every
 * serializer, with and without gzip, through XRpc and through the library directly.
 * {@code java -cp benchmarks.jar io.xrpc.benchmark.SizeTable [output.md]}
 */
public final class SizeTable {
    private SizeTable() {}

    public static void main(String[] args) throws IOException {
        Path out = Path.of(args.length > 0 ? args[0] : "serializer-sizes.md");
        String table = table();
        System.out.print(table);
        Files.writeString(out, table, StandardCharsets.UTF_8);
        System.out.println("saved " + out.toAbsolutePath());
    }

    public static String table() throws IOException {
        StringBuilder sb = new StringBuilder("| serializer | compressor | api | response | user | page of 15 |\n"
                + "|---|---|---|---:|---:|---:|\n");
        CompressorRegistry compressors = CompressorRegistry.load();
        for (String s : List.of("kryo", "hessian", "protostuff", "fory")) {
            for (String c : List.of("none", "gzip")) {
                for (String api : List.of("xrpc", "raw")) {
                    sb.append("| ")
                            .append(s)
                            .append(" | ")
                            .append(c)
                            .append(" | ")
                            .append(api);
                    Codec codec = Codec.of(api, s);
                    for (String p : List.of("response", "user", "page")) {
                        sb.append(" | ").append(size(codec, compressors.get(c), Payloads.byName(p)));
                    }
                    sb.append(" |\n");
                }
            }
        }
        return sb.toString();
    }

    static int size(Codec codec, Compressor compressor, Object value) throws IOException {
        ByteBuf buf = Unpooled.buffer();
        try (OutputStream out = compressor.compress(new ByteBufOutputStream(buf))) {
            codec.write(value, out);
        }
        return buf.readableBytes();
    }
}
