package io.xrpc.serialize;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * xrpc-core's other serializers' libraries are optional: loaded where hessian-lite is not on the
 * class path, the registry still holds kryo and json, and choosing hessian fails naming the
 * dependency to add (before: hessian-lite came with xrpc-core, with every other serializer's library).
 */
class MissingLibraryTest {

    @Test
    void aSerializerWhoseLibraryIsAbsentIsNamedWithTheDependencyToAdd() throws Exception {
        List<URL> urls = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (!entry.contains("hessian-lite")) {
                urls.add(new File(entry).toURI().toURL());
            }
        }
        assertThat(urls).hasSizeLessThan(System.getProperty("java.class.path").split(File.pathSeparator).length);
        ClassLoader previous = Thread.currentThread().getContextClassLoader();
        try (URLClassLoader without =
                new URLClassLoader(urls.toArray(URL[]::new), ClassLoader.getPlatformClassLoader())) {
            Thread.currentThread().setContextClassLoader(without);
            Class<?> allowList = without.loadClass(ClassAllowList.class.getName());
            Class<?> limits = without.loadClass(ReadLimits.class.getName());
            Class<?> registryClass = without.loadClass(SerializerRegistry.class.getName());
            Object registry = registryClass
                    .getMethod("load", allowList, limits)
                    .invoke(
                            null,
                            allowList.getMethod("withDefaults").invoke(null),
                            limits.getMethod("defaults").invoke(null));

            Method get = registryClass.getMethod("get", String.class);
            assertThat(get.invoke(registry, "kryo")).isNotNull();
            assertThat(get.invoke(registry, "json")).isNotNull();
            Map<?, ?> missing = (Map<?, ?>) registryClass.getMethod("missing").invoke(registry);
            assertThat(missing.keySet().stream().map(String::valueOf).toList()).containsExactly("hessian");
            try {
                get.invoke(registry, "hessian");
                throw new AssertionError("hessian was given without its library");
            } catch (InvocationTargetException e) {
                assertThat(e.getCause())
                        .isInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("hessian needs org.apache.dubbo:hessian-lite on the class path");
            }
        } finally {
            Thread.currentThread().setContextClassLoader(previous);
        }
    }
}
