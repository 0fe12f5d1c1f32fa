package io.xrpc.benchmark.peers;

import io.xrpc.benchmark.model.Scenarios;
import io.xrpc.benchmark.model.UserService;
import io.xrpc.benchmark.model.UserServiceImpl;
import io.xrpc.benchmark.stress.Contender;
import io.xrpc.benchmark.stress.StressTool;
import java.util.List;
import org.apache.dubbo.config.ApplicationConfig;
import org.apache.dubbo.config.ProtocolConfig;
import org.apache.dubbo.config.ReferenceConfig;
import org.apache.dubbo.config.RegistryConfig;
import org.apache.dubbo.config.ServiceConfig;
import org.apache.dubbo.config.bootstrap.DubboBootstrap;

/**
 * Apache Dubbo 3: dubbo protocol, hessian2, direct URL, the same service interface and payloads
 * as XRpc. Dubbo advertises and connects through the host's first non-loopback address, so run
 * it only inside a network namespace of its own ({@code benchmark-netns.sh}), with
 * {@code --provider fork} (one Dubbo bootstrap per JVM).
 */
public final class DubboContender implements Contender {
    private static final String HOST = System.getProperty("xrpc.bench.dubbo.host", "198.18.0.1");

    static {
        // Dubbo's hessian2 otherwise insists on java.io.Serializable; the DTOs are plain, as for XRpc.
        System.setProperty("dubbo.application.check-serializable", "false");
        System.setProperty("dubbo.application.serialize-check-status", "DISABLE");
        System.setProperty("dubbo.hessian.allowNonSerializable", "true");
    }

    private static ApplicationConfig application(String name) {
        ApplicationConfig app = new ApplicationConfig(name);
        app.setQosEnable(false);
        // The benchmark's DTOs are plain classes, as they are for XRpc.
        app.setSerializeCheckStatus("DISABLE");
        app.setCheckSerializable(false);
        return app;
    }

    @Override
    public AutoCloseable startServer(int[] port) {
        ProtocolConfig protocol = new ProtocolConfig("dubbo", 0);
        protocol.setHost(HOST);
        protocol.setSerialization("hessian2");
        ServiceConfig<UserService> service = new ServiceConfig<>();
        service.setInterface(UserService.class);
        service.setRef(new UserServiceImpl());
        DubboBootstrap bootstrap = DubboBootstrap.getInstance().application(application("bench-provider"))
                .registry(new RegistryConfig(RegistryConfig.NO_AVAILABLE)).protocol(protocol).service(service).start();
        port[0] = service.getExportedUrls().get(0).getPort();
        return bootstrap::stop;
    }

    @Override
    public StressTool.Call caller(String scenario, int port, List<AutoCloseable> resources) {
        ReferenceConfig<UserService> reference = new ReferenceConfig<>();
        reference.setInterface(UserService.class);
        reference.setUrl("dubbo://" + HOST + ":" + port);
        reference.setTimeout(3000);
        reference.setRetries(0);
        DubboBootstrap bootstrap = DubboBootstrap.getInstance();
        if (!bootstrap.isStarted()) {
            bootstrap.application(application("bench-consumer")).registry(new RegistryConfig(RegistryConfig.NO_AVAILABLE));
        }
        bootstrap.reference(reference).start();
        resources.add(reference::destroy);
        Runnable call = Scenarios.call(reference.get(), scenario);
        return call::run;
    }
}
